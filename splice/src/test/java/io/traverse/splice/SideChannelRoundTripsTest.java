package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SideChannelRoundTripsTest {
    @Test
    void oneSlowRequestDoesNotSetTheEstimate() {
        SideChannelRoundTrips trips = new SideChannelRoundTrips();
        assertThat(trips.estimateNanos()).isEmpty();
        trips.add(161_000_000); // a cold JVM's first request
        assertThat(trips.estimateNanos()).hasValue(161_000_000);
        trips.add(29_000_000);
        assertThat(trips.estimateNanos()).as("the lower of two").hasValue(29_000_000);
        trips.add(5_000_000);
        assertThat(trips.estimateNanos()).hasValue(5_000_000);
        for (int i = 0; i < SideChannelRoundTrips.SAMPLES; i++) {
            trips.add(7_000_000);
        }
        assertThat(trips.estimateNanos()).as("a low one leaves the window too").hasValue(7_000_000);
    }
}
