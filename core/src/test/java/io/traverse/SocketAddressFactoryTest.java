package io.traverse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.identity.IpLiterals;
import io.traverse.identity.NodeId;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class SocketAddressFactoryTest {
    @Test
    void virtualAddressBecomesVirtualSocketAddress() {
        SocketAddress a = SocketAddressFactory.parse("tv1-node7.a10-0-0-2p5000:80");
        assertThat(a).isInstanceOf(VirtualSocketAddress.class);
        VirtualSocketAddress v = (VirtualSocketAddress) a;
        assertThat(v.node().id()).contains(NodeId.of("node7"));
        assertThat(v.getPort()).isEqualTo(80);
        assertThat(SocketAddressFactory.parse("TV1-NODE7.A10-0-0-2P5000:80")).isEqualTo(v);
        assertThat(new SocketAddressFactory().createSocketAddress("tv1-node7.a10-0-0-2p5000:80"))
                .isEqualTo(v);
    }

    @Test
    void hostNameStaysUnresolved() {
        SocketAddress a = SocketAddressFactory.parse("db.example.invalid:5432");
        assertThat(a).isInstanceOf(InetSocketAddress.class);
        InetSocketAddress inet = (InetSocketAddress) a;
        assertThat(inet.isUnresolved()).as("no DNS lookup here").isTrue();
        assertThat(inet.getHostString()).isEqualTo("db.example.invalid");
        assertThat(inet.getPort()).isEqualTo(5432);
        // A registered name that merely starts like a marker is still just a name.
        assertThat(((InetSocketAddress) SocketAddressFactory.parse("tv10:80")).getHostString())
                .isEqualTo("tv10");
    }

    @Test
    void ipLiteralsAreResolvedWithoutDns() {
        InetSocketAddress v4 = (InetSocketAddress) SocketAddressFactory.parse("198.18.0.1:17000");
        assertThat(v4.isUnresolved()).isFalse();
        assertThat(v4.getAddress()).isEqualTo(IpLiterals.parse("198.18.0.1"));
        assertThat(v4.getPort()).isEqualTo(17000);

        InetSocketAddress v6 = (InetSocketAddress) SocketAddressFactory.parse(" [2001:db8::1]:443 ");
        assertThat(v6.isUnresolved()).isFalse();
        assertThat(v6.getAddress()).isEqualTo(IpLiterals.parse("2001:db8::1"));
        assertThat(v6.getPort()).isEqualTo(443);

        assertThat(((InetSocketAddress) SocketAddressFactory.parse("[::1]:0")).getPort())
                .isZero();
    }

    @Test
    void errorsNameThePart() {
        assertThatThrownBy(() -> SocketAddressFactory.parse(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> SocketAddressFactory.parse("   ")).hasMessageContaining("empty");
        assertThatThrownBy(() -> SocketAddressFactory.parse(null)).hasMessageContaining("empty");
        assertThatThrownBy(() -> SocketAddressFactory.parse("example.org")).hasMessageContaining(":PORT");
        assertThatThrownBy(() -> SocketAddressFactory.parse("example.org:http"))
                .hasMessageContaining("'http'")
                .hasMessageContaining("not a number");
        assertThatThrownBy(() -> SocketAddressFactory.parse("example.org:70000"))
                .hasMessageContaining("70000");
        assertThatThrownBy(() -> SocketAddressFactory.parse(":80")).hasMessageContaining("no host");
        assertThatThrownBy(() -> SocketAddressFactory.parse("2001:db8::1:80")).hasMessageContaining("[ADDRESS]:PORT");
        for (String bad : List.of("[::1]", "[::1]80", "[::1:80", "[]:80x")) {
            assertThatThrownBy(() -> SocketAddressFactory.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> SocketAddressFactory.parse("tv1-node7.a300-0-0-1p5000:80"))
                .hasMessageContaining("a300-0-0-1p5000")
                .hasMessageContaining("300");
        assertThatThrownBy(() -> SocketAddressFactory.parse("tv1-node7.a10-0-0-1p5000"))
                .hasMessageContaining(":PORT");
    }
}
