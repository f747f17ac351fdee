/**
 * The hub link protocol shared by nodes and hubs (paper §3.3.1–3.3.2: the side channel, gossip
 * between hubs): the 8-byte preamble, length-prefixed frames, the typed messages of
 * {@link io.traverse.wire.LinkMessage}, their Netty codec and the challenge-response computation of
 * {@link io.traverse.wire.LinkAuthentication}. Codecs only: every length is validated before
 * anything is allocated for it, and nothing here decides what a message means. Specified in
 * docs/protocol.md ("Hub link protocol").
 */
package io.traverse.wire;
