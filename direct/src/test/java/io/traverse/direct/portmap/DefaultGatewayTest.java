package io.traverse.direct.portmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class DefaultGatewayTest {
    private static final String HEADER =
            "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT";

    @Test
    void readsTheDefaultRouteInHostByteOrder() throws Exception {
        List<String> table = List.of(
                HEADER,
                "eth0\t0007000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
                "eth0\t00000000\t0107000A\t0003\t0\t0\t0\t00000000\t0\t0\t0");
        assertThat(DefaultGateway.fromRouteTable(table)).contains(InetAddress.getByName("10.0.7.1"));
    }

    @Test
    void noDefaultRouteOrOneThatIsDownGivesNothing() {
        assertThat(DefaultGateway.fromRouteTable(List.of(HEADER))).isEmpty();
        assertThat(DefaultGateway.fromRouteTable(
                        List.of(HEADER, "eth0\t00000000\t0107000A\t0002\t0\t0\t0\t00000000\t0\t0\t0")))
                .isEmpty();
        assertThat(DefaultGateway.fromRouteTable(List.of())).isEmpty();
    }
}
