package io.traverse.direct;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** Nodes on loopback addresses, closed together at the end of a test. */
final class TestNodes implements AutoCloseable {
    private final List<AutoCloseable> open = new ArrayList<>();

    /** A node listening on {@code ip} only (any 127.x.y.z works on Linux without configuration). */
    Traverse node(String ip) throws IOException {
        return node(ip, b -> b);
    }

    Traverse node(String ip, UnaryOperator<TraverseConfig.Builder> settings) throws IOException {
        Traverse t =
                Traverse.start(settings.apply(TraverseConfig.builder().bind(ip)).build());
        open.add(t);
        return t;
    }

    <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
