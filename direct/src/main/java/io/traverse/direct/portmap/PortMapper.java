package io.traverse.direct.portmap;

import java.io.IOException;
import java.time.Duration;

/** One port-mapping protocol talking to the router in front of this host: map, renew, unmap a TCP port. */
interface PortMapper {
    /** {@code upnp}, {@code pcp} or {@code natpmp}, as in {@code traverse.portmap.protocols}. */
    String name();

    /** Maps TCP {@code internalPort} of this host, asking for the same external port and {@code lease}. */
    MappedPort map(int internalPort, Duration lease) throws IOException;

    /** Extends {@code mapping}; the router may answer with another external address or port. */
    MappedPort renew(MappedPort mapping, Duration lease) throws IOException;

    /** Removes {@code mapping} at the router. */
    void unmap(MappedPort mapping) throws IOException;
}
