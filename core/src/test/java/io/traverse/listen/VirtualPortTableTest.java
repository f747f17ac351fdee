package io.traverse.listen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.BindException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VirtualPortTableTest {
    @Test
    void bindsAndLooksUpPorts() throws Exception {
        VirtualPortTable table = new VirtualPortTable();
        AcceptQueue web = new AcceptQueue(1);
        AcceptQueue db = new AcceptQueue(1);
        assertThat(table.bind(80, web)).isEqualTo(80);
        assertThat(table.bind(5432, db)).isEqualTo(5432);
        assertThat(table.lookup(80)).isSameAs(web);
        assertThat(table.lookup(5432)).isSameAs(db);
        assertThat(table.lookup(81)).isNull();
        assertThat(table.size()).isEqualTo(2);
        assertThat(table.bind(1, web)).isEqualTo(1);
        assertThat(table.bind(65535, web)).isEqualTo(65535);
    }

    @Test
    void aTakenPortIsABindException() throws Exception {
        VirtualPortTable table = new VirtualPortTable();
        AcceptQueue first = new AcceptQueue(1);
        table.bind(80, first);
        assertThatThrownBy(() -> table.bind(80, new AcceptQueue(1)))
                .isInstanceOf(BindException.class)
                .hasMessageContaining("80");
        assertThat(table.lookup(80)).isSameAs(first);
    }

    @Test
    void portZeroPicksAFreeEphemeralPort() throws Exception {
        VirtualPortTable table = new VirtualPortTable();
        table.bind(VirtualPortTable.EPHEMERAL_FIRST, new AcceptQueue(1));
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            int port = table.bind(0, new AcceptQueue(1));
            assertThat(port).isBetween(49152, 65535).isNotEqualTo(VirtualPortTable.EPHEMERAL_FIRST);
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
        }
    }

    @Test
    void ephemeralRangeCanRunOut() throws Exception {
        VirtualPortTable table = new VirtualPortTable();
        AcceptQueue q = new AcceptQueue(1);
        for (int i = 0; i < 65535 - 49152 + 1; i++) {
            table.bind(0, q);
        }
        assertThatThrownBy(() -> table.bind(0, q))
                .isInstanceOf(BindException.class)
                .hasMessageContaining("ephemeral");
        assertThat(table.bind(1024, q)).as("fixed ports are still free").isEqualTo(1024);
    }

    @Test
    void unbindFreesOnlyItsOwnPort() throws Exception {
        VirtualPortTable table = new VirtualPortTable();
        AcceptQueue owner = new AcceptQueue(1);
        AcceptQueue other = new AcceptQueue(1);
        table.bind(80, owner);
        table.unbind(80, other); // not the owner: nothing happens
        assertThat(table.lookup(80)).isSameAs(owner);
        table.unbind(80, owner);
        assertThat(table.lookup(80)).isNull();
        assertThat(table.bind(80, other)).isEqualTo(80);
    }

    @Test
    void outOfRangePortsAreRefused() {
        VirtualPortTable table = new VirtualPortTable();
        assertThatThrownBy(() -> table.bind(-1, new AcceptQueue(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> table.bind(65536, new AcceptQueue(1))).isInstanceOf(IllegalArgumentException.class);
    }
}
