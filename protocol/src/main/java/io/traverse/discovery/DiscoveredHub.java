package io.traverse.discovery;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * A hub that answered a discovery probe.
 *
 * @param name the hub's name (its id is derived from it)
 * @param linkAddresses where the hub accepts links, wildcards already replaced by {@code answeredFrom}'s address
 * @param answeredFrom the source of the answer datagram
 * @param answerTime from the first probe to this answer: the nearest hubs answer first
 */
public record DiscoveredHub(
        String name, List<InetSocketAddress> linkAddresses, InetSocketAddress answeredFrom, Duration answerTime) {
    public DiscoveredHub {
        linkAddresses = List.copyOf(linkAddresses);
    }
}
