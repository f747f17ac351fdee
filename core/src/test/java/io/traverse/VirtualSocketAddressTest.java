package io.traverse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.identity.RandomIdentities;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class VirtualSocketAddressTest {
    @Test
    void textFormRoundTripsOverRandomAddresses() {
        for (int n = 0; n < 3000; n++) {
            Random r = RandomIdentities.forCase(n);
            NodeIdentity node = RandomIdentities.identity(r);
            int port = r.nextInt(10) == 0 ? 0 : RandomIdentities.port(r);
            VirtualSocketAddress v = new VirtualSocketAddress(node, port);
            String where = RandomIdentities.describe(n) + ", " + v;

            VirtualSocketAddress parsed = VirtualSocketAddress.parse(v.toString());
            assertThat(parsed).as(where).isEqualTo(v);
            assertThat(parsed.hashCode()).as(where).isEqualTo(v.hashCode());
            assertThat(parsed.node()).as(where).isEqualTo(node);
            assertThat(v.getHostString()).as(where).isEqualTo(node.toText());
            assertThat(v.getPort()).as(where).isEqualTo(port);
            assertThat(v.toString()).as(where).isEqualTo(v.getHostString() + ":" + port);
            assertThat(SocketAddressFactory.parse(v.toString())).as(where).isEqualTo(v);
            // What a JDBC driver builds from "jdbc:x://HOST:PORT/db" gives the same two parts back.
            URI uri = URI.create("jdbc-x://" + v.getHostString() + ":" + port + "/db");
            assertThat(uri.getHost()).as(where).isEqualTo(v.getHostString());
            assertThat(NodeIdentity.parse(InetSocketAddress.createUnresolved(v.getHostString(), port)
                            .getHostString()))
                    .as(where)
                    .isEqualTo(node);
        }
    }

    @Test
    void parseAcceptsSurroundingSpaceAndUpperCase() {
        VirtualSocketAddress v = VirtualSocketAddress.parse(" TV1-Node7.A10-0-0-2P5000:80 ");
        assertThat(v.node().id()).contains(NodeId.of("node7"));
        assertThat(v.getPort()).isEqualTo(80);
        assertThat(v.getHostString()).isEqualTo("tv1-node7.a10-0-0-2p5000");
    }

    @Test
    void parseErrorsNameThePart() {
        assertThatThrownBy(() -> VirtualSocketAddress.parse("tv1-node7.a10-0-0-2p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(":PORT");
        assertThatThrownBy(() -> VirtualSocketAddress.parse("tv1-node7:http"))
                .hasMessageContaining("'http'")
                .hasMessageContaining("not a number");
        assertThatThrownBy(() -> VirtualSocketAddress.parse("tv1-node7:65536")).hasMessageContaining("65536");
        assertThatThrownBy(() -> VirtualSocketAddress.parse("tv1-node7:-1")).hasMessageContaining("-1");
        assertThatThrownBy(() -> VirtualSocketAddress.parse("tv1-node7.a300-0-0-1p5000:80"))
                .hasMessageContaining("a300-0-0-1p5000")
                .hasMessageContaining("300");
        assertThatThrownBy(() -> VirtualSocketAddress.parse("node7:80")).hasMessageContaining("tv1");
        assertThatThrownBy(() -> VirtualSocketAddress.parse(null)).isInstanceOf(IllegalArgumentException.class);
        NodeIdentity node = NodeIdentity.builder().id(NodeId.of("n")).build();
        assertThatThrownBy(() -> new VirtualSocketAddress(node, 65536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new VirtualSocketAddress(null, 1)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void equalityIsByNodeAndPort() {
        NodeIdentity a = NodeIdentity.builder().id(NodeId.of("a")).build();
        NodeIdentity b = NodeIdentity.builder().id(NodeId.of("b")).build();
        assertThat(new VirtualSocketAddress(a, 80))
                .isEqualTo(new VirtualSocketAddress(a, 80))
                .isNotEqualTo(new VirtualSocketAddress(a, 81))
                .isNotEqualTo(new VirtualSocketAddress(b, 80));
    }

    @Test
    void survivesJavaSerialization() throws Exception {
        for (VirtualSocketAddress v : List.of(
                VirtualSocketAddress.parse("tv1-node7.a10-0-0-2p5000.afd00z1p5000.h198-18-0-1p17000:80"),
                VirtualSocketAddress.parse("tv1.az1p5000:1"))) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(v);
            }
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                VirtualSocketAddress copy = (VirtualSocketAddress) in.readObject();
                assertThat(copy).isEqualTo(v);
                assertThat(copy.node()).isEqualTo(v.node());
            }
        }
    }
}
