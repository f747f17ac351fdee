package io.traverse.rmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

/**
 * What RMI relies on in the factories: equality (it shares listening sockets and connections
 * between equal factories), serialization (the client factory travels in every stub), and names
 * checked where they are given. Calls across NAT: the testbed's {@code RmiBehindNatTest}.
 */
class TraverseRmiSocketFactoriesTest {
    @Test
    void clientFactoriesAreEqualWhenTheyNameTheSameServerAndTravelInStubs() throws Exception {
        TraverseRmiClientSocketFactory orders = new TraverseRmiClientSocketFactory("Orders");
        assertThat(orders)
                .isEqualTo(new TraverseRmiClientSocketFactory("orders"))
                .hasSameHashCodeAs(new TraverseRmiClientSocketFactory("orders"));
        assertThat(orders)
                .isNotEqualTo(new TraverseRmiClientSocketFactory("billing"))
                .isNotEqualTo(new TraverseRmiClientSocketFactory());
        assertThat(new TraverseRmiClientSocketFactory()).isEqualTo(new TraverseRmiClientSocketFactory());
        Object readBack = roundTrip(orders);
        assertThat(readBack).isEqualTo(orders).hasToString("TraverseRmiClientSocketFactory[orders]");
    }

    @Test
    void serverFactoriesAreEqualWhenTheyRegisterTheSameNameAndMakeClientFactoriesForIt() throws Exception {
        TraverseRmiServerSocketFactory orders = new TraverseRmiServerSocketFactory("orders.example");
        assertThat(orders)
                .isEqualTo(new TraverseRmiServerSocketFactory("Orders.Example"))
                .hasSameHashCodeAs(new TraverseRmiServerSocketFactory("orders.example"))
                .isNotEqualTo(new TraverseRmiServerSocketFactory("billing"));
        assertThat(orders.name()).isEqualTo("orders.example");
        assertThat(orders.clientFactory()).isEqualTo(new TraverseRmiClientSocketFactory("orders.example"));
        assertThat(roundTrip(orders)).isEqualTo(orders);
    }

    @Test
    void aNameNoNodeCanRegisterIsRefusedWhereItIsGiven() {
        for (String bad : new String[] {"", "has space", "10.0.0.1", "-leading", "x".repeat(254)}) {
            assertThatThrownBy(() -> new TraverseRmiServerSocketFactory(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a name a Traverse node can register");
            assertThatThrownBy(() -> new TraverseRmiClientSocketFactory(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> new TraverseRmiServerSocketFactory(null)).isInstanceOf(IllegalArgumentException.class);
    }

    private static Object roundTrip(Object o) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return in.readObject();
        }
    }
}
