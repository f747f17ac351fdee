package io.traverse.bench.load;

import java.io.IOException;
import java.nio.file.Path;

/** PNG plots of a load run (not yet: XChart is not in the build). */
final class LoadPlots {
    private LoadPlots() {
    }

    static void write(LoadResult r, Path folder) throws IOException {
        throw new IOException("plots are not implemented yet");
    }
}
