package io.traverse.cli.pipe;

import io.traverse.HubLinkStatus;
import io.traverse.Traverse;
import java.io.IOException;
import java.time.Duration;

/**
 * What a pipe command says about its hub link when it starts: linked (and to which hub), still
 * trying (and why, so the operator sees it beside the ready line), or refused for a setting such
 * as a wrong token, which no waiting fixes: the command then fails with the hub's reason.
 */
public final class HubLinkReadiness {
    /** Long enough for a hub on the same site to answer, short enough that the ready line is not held up. */
    public static final Duration WAIT = Duration.ofSeconds(2);

    private HubLinkReadiness() {}

    /**
     * Waits up to {@code within} for the node's hub link and returns the words to put after the
     * command's ready line.
     *
     * @throws IOException if a hub refused the node for one of its settings (wrong network token)
     */
    public static String await(Traverse node, Duration within) throws IOException, InterruptedException {
        // Ends at once when linked, when there is no hub, or when a hub refuses a setting of this node.
        node.awaitHubLink(within);
        HubLinkStatus status = node.hubLinkStatus();
        switch (status.state()) {
            case CONNECTED:
                return " (hub link to " + status.hubName() + " at " + status.hubAddress() + ")";
            case NO_HUB:
                return " (no hub" + (status.lastFailure() == null ? "" : ": " + status.lastFailure())
                        + "; only node addresses work, names do not)";
            case CLOSED:
                throw new IOException("the node closed while starting");
            default:
                if (status.refusedForSetting()) {
                    throw new IOException("no hub link: " + status.lastFailure());
                }
                return "; waiting for a hub link ("
                        + (status.lastFailure() == null ? "no answer yet" : "last failure: " + status.lastFailure())
                        + ")";
        }
    }
}
