package io.traverse.direct.portmap;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.bitlet.weupnp.GatewayDevice;
import org.bitlet.weupnp.GatewayDiscover;

/**
 * UPnP Internet Gateway Device through weupnp: SSDP discovery of the gateway, its external
 * address, and {@code AddPortMapping} with a lease (weupnp's own call always asks for a permanent
 * one, so the SOAP action is sent through its {@code simpleUPnPcommand}). Renewing adds the same
 * mapping again, which refreshes its lease; a gateway that only grants permanent leases (error
 * 725) gets lease 0, and the mapping is removed at close like any other.
 */
final class UpnpIgdMapper implements PortMapper {
    static final String NAME = "upnp";
    private static final int ONLY_PERMANENT_LEASES = 725;
    private static final int CONFLICT_IN_MAPPING_ENTRY = 718;
    /** Other external ports tried when the listening port is taken on the gateway. */
    private static final int OTHER_PORTS = 3;

    private final Duration discoveryTimeout;
    private final InetAddress bindAddress;
    private GatewayDevice gateway;

    /**
     * @param bindAddress the address the node listens on, or null for every interface (then the
     *                    gateway gets the address this host reached it from)
     */
    UpnpIgdMapper(Duration discoveryTimeout, InetAddress bindAddress) {
        this.discoveryTimeout = discoveryTimeout;
        this.bindAddress = bindAddress;
    }

    @Override
    public String name() {
        return NAME;
    }

    private GatewayDevice gateway() throws IOException {
        if (gateway != null) {
            return gateway;
        }
        GatewayDiscover discover = new GatewayDiscover();
        discover.setTimeout((int) discoveryTimeout.toMillis());
        try {
            discover.discover();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) { // SAXException, ParserConfigurationException: a broken device description
            throw new PortMappingException("UPnP gateway discovery failed: " + e.getMessage(), e);
        }
        GatewayDevice found = discover.getValidGateway();
        if (found == null) {
            throw new PortMappingException(
                    "no UPnP Internet Gateway Device answered within " + discoveryTimeout.toMillis() + " ms");
        }
        gateway = found;
        return found;
    }

    @Override
    public MappedPort map(int internalPort, Duration lease) throws IOException {
        GatewayDevice g = gateway();
        InetAddress external = externalAddress(g);
        InetAddress client = bindAddress != null ? bindAddress : g.getLocalAddress();
        int externalPort = internalPort;
        for (int attempt = 0; ; attempt++) {
            try {
                Duration granted = add(g, externalPort, internalPort, client, lease);
                return new MappedPort(
                        NAME,
                        new InetSocketAddress(external, externalPort),
                        new InetSocketAddress(client, internalPort),
                        granted,
                        new byte[0]);
            } catch (UpnpError e) {
                if (e.code != CONFLICT_IN_MAPPING_ENTRY || attempt >= OTHER_PORTS) {
                    throw e;
                }
                externalPort = ThreadLocalRandom.current().nextInt(20000, 60000);
            }
        }
    }

    @Override
    public MappedPort renew(MappedPort mapping, Duration lease) throws IOException {
        GatewayDevice g = gateway();
        Duration granted;
        InetAddress external;
        try {
            granted = add(
                    g,
                    mapping.external().getPort(),
                    mapping.internal().getPort(),
                    mapping.internal().getAddress(),
                    lease);
            external = externalAddress(g);
        } catch (IOException e) {
            gateway = null; // the router may have restarted elsewhere: discover it again next time
            throw e;
        }
        return new MappedPort(
                NAME,
                new InetSocketAddress(external, mapping.external().getPort()),
                mapping.internal(),
                granted,
                mapping.nonce());
    }

    @Override
    public void unmap(MappedPort mapping) throws IOException {
        try {
            if (!gateway().deletePortMapping(mapping.external().getPort(), "TCP")) {
                throw new PortMappingException("the UPnP gateway refused to delete " + mapping);
            }
        } catch (org.xml.sax.SAXException e) {
            throw new PortMappingException("UPnP gateway sent a malformed reply: " + e.getMessage(), e);
        }
    }

    private static InetAddress externalAddress(GatewayDevice g) throws IOException {
        String text;
        try {
            text = g.getExternalIPAddress();
        } catch (org.xml.sax.SAXException e) {
            throw new PortMappingException("UPnP gateway sent a malformed reply: " + e.getMessage(), e);
        }
        if (text == null || text.isBlank()) {
            throw new PortMappingException("the UPnP gateway reports no external address");
        }
        try {
            return io.traverse.identity.IpLiterals.parse(text.trim());
        } catch (IllegalArgumentException e) {
            throw new PortMappingException(
                    "the UPnP gateway's external address '" + text + "' is not an IP address", e);
        }
    }

    /** AddPortMapping; returns the lease granted. */
    private static Duration add(GatewayDevice g, int externalPort, int internalPort, InetAddress client, Duration lease)
            throws IOException {
        try {
            addOnce(g, externalPort, internalPort, client, lease.toSeconds());
            return lease;
        } catch (UpnpError e) {
            if (e.code != ONLY_PERMANENT_LEASES) {
                throw e;
            }
            addOnce(g, externalPort, internalPort, client, 0);
            return Duration.ZERO;
        }
    }

    private static void addOnce(
            GatewayDevice g, int externalPort, int internalPort, InetAddress client, long leaseSeconds)
            throws IOException {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("NewRemoteHost", "");
        args.put("NewExternalPort", Integer.toString(externalPort));
        args.put("NewProtocol", "TCP");
        args.put("NewInternalPort", Integer.toString(internalPort));
        args.put("NewInternalClient", client.getHostAddress());
        args.put("NewEnabled", "1");
        args.put("NewPortMappingDescription", "traverse node");
        args.put("NewLeaseDuration", Long.toString(leaseSeconds));
        Map<String, String> reply;
        try {
            reply = GatewayDevice.simpleUPnPcommand(g.getControlURL(), g.getServiceType(), "AddPortMapping", args);
        } catch (org.xml.sax.SAXException e) {
            throw new PortMappingException("UPnP gateway sent a malformed reply: " + e.getMessage(), e);
        }
        String error = reply.get("errorCode");
        if (error != null) {
            int code;
            try {
                code = Integer.parseInt(error.trim());
            } catch (NumberFormatException e) {
                code = -1;
            }
            throw new UpnpError(
                    code,
                    "the UPnP gateway refused AddPortMapping of TCP " + externalPort + " -> " + client.getHostAddress()
                            + ":" + internalPort + ": error " + error + " "
                            + reply.getOrDefault("errorDescription", ""));
        }
    }

    /** A UPnP error reply, with its code. */
    private static final class UpnpError extends IOException {
        private static final long serialVersionUID = 1L;
        final int code;

        UpnpError(int code, String message) {
            super(message);
            this.code = code;
        }
    }
}
