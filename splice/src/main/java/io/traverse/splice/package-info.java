/**
 * The {@code splice} connection module (paper §3.3.3 "Splicing"): TCP simultaneous open with the
 * external endpoint echoed by the hub and port prediction. Not built yet: it needs the hub side
 * channel, so this artifact registers no module and the chain skips it.
 */
package io.traverse.splice;
