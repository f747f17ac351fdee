package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import io.traverse.hublink.transport.HubDataLink;
import io.traverse.identity.NodeId;
import io.traverse.node.LocalNode;
import io.traverse.security.IdentityKey;
import io.traverse.security.LinkTls;
import io.traverse.wire.DataLinkSwitch;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupKind;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Data links (docs/protocol.md, "Data links") on a real hub: relayed bytes of every size mix —
 * 1-byte writes, odd sizes, writes longer than a frame — arrive intact with and without a data
 * link at either end; the hub refuses data links it cannot bind; a data link that breaks takes its
 * connections and the node's link with it, and the node links again with a new one.
 */
class DataLinkTest {
    private static final int PORT = 4200;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    private Traverse node(Hub hub, boolean dataLink) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .hubDataLink(dataLink)
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    /** A client and a server node on one hub, both with data links, and the server listening on {@link #PORT}. */
    private record LinkedPair(Traverse client, TraverseServerSocket listening) {}

    private LinkedPair linkedPair(String hubName) throws Exception {
        Hub hub = net.hub(hubName);
        Traverse server = node(hub, true);
        Traverse client = node(hub, true);
        return new LinkedPair(
                client, net.closeLater(server.serverSocketFactory().createServerSocket(PORT)));
    }

    @ParameterizedTest(name = "data link at the client {0}, at the server {1}")
    @CsvSource({"true, true", "false, false", "true, false", "false, true"})
    void writesOfEverySizeCrossBothWaysIntact(boolean clientDataLink, boolean serverDataLink) throws Exception {
        Hub hub = net.hub("datalink");
        Traverse server = node(hub, serverDataLink);
        Traverse client = node(hub, clientDataLink);
        assertThat(relayLinkOf(client).dataLinkRelay() != null).isEqualTo(clientDataLink);
        assertThat(relayLinkOf(server).dataLinkRelay() != null).isEqualTo(serverDataLink);
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT));
        int bytes = 24 * 1024 * 1024;

        CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket s = listening.accept()) {
                        return exchange(s, 11, bytes);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        byte[] clientGot;
        try (Socket s = connect(client, (VirtualSocketAddress) listening.getLocalSocketAddress())) {
            assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("routed");
            clientGot = exchange(s, 10, bytes);
        }
        assertThat(clientGot).isEqualTo(expectedDigest(11, bytes));
        assertThat(served.get(60, TimeUnit.SECONDS)).isEqualTo(expectedDigest(10, bytes));
    }

    /**
     * Sealed frames are built in the heap where the native AES-GCM seals, and the data link copies
     * them into its own direct buffer before writing: many streams at once fill its batches, and
     * every byte still arrives in order. (Run with a buffer of 70 KiB, most batches are written in
     * parts, and it passes too.)
     */
    @Test
    void manySealedStreamsAtOnceCrossOneDataLinkIntact() throws Exception {
        LinkedPair pair = linkedPair("datalink");
        Traverse client = pair.client();
        TraverseServerSocket listening = pair.listening();
        int streams = 12;
        int bytes = 4 * 1024 * 1024;
        List<CompletableFuture<byte[]>> served = new ArrayList<>();
        List<CompletableFuture<byte[]>> got = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            served.add(CompletableFuture.supplyAsync(
                    () -> {
                        try (Socket s = listening.accept()) {
                            int seed = s.getInputStream().read(); // the client's first byte names its stream
                            return exchange(s, 1000 + seed, bytes);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads));
        }
        for (int i = 0; i < streams; i++) {
            int stream = i;
            got.add(CompletableFuture.supplyAsync(
                    () -> {
                        try (Socket s = connect(client, (VirtualSocketAddress) listening.getLocalSocketAddress())) {
                            assertThat(client.connectionInfo(s).orElseThrow().module())
                                    .isEqualTo("routed");
                            s.getOutputStream().write(stream);
                            return exchange(s, 2000 + stream, bytes);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads));
        }
        java.util.Set<String> servedDigests = new java.util.HashSet<>();
        for (int i = 0; i < streams; i++) {
            assertThat(got.get(i).get(120, TimeUnit.SECONDS)).isEqualTo(expectedDigest(1000 + i, bytes));
            servedDigests.add(java.util.HexFormat.of().formatHex(served.get(i).get(120, TimeUnit.SECONDS)));
        }
        java.util.Set<String> expected = new java.util.HashSet<>();
        for (int i = 0; i < streams; i++) {
            expected.add(java.util.HexFormat.of().formatHex(expectedDigest(2000 + i, bytes)));
        }
        assertThat(servedDigests).isEqualTo(expected);
    }

    @Test
    void aOneByteConversationGoesBackAndForth() throws Exception {
        LinkedPair pair = linkedPair("datalink-chat");
        Traverse client = pair.client();
        TraverseServerSocket listening = pair.listening();
        CompletableFuture<Integer> echoed = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket s = listening.accept()) {
                        int n = 0;
                        for (int b; (b = s.getInputStream().read()) >= 0; n++) {
                            s.getOutputStream().write(b + 1);
                        }
                        return n;
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        try (Socket s = connect(client, (VirtualSocketAddress) listening.getLocalSocketAddress())) {
            for (int i = 0; i < 2_000; i++) {
                s.getOutputStream().write(i & 0x7F);
                assertThat(s.getInputStream().read()).isEqualTo((i & 0x7F) + 1);
            }
            s.shutdownOutput();
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(echoed.get(20, TimeUnit.SECONDS)).isEqualTo(2_000);
    }

    @Test
    void theHubRefusesDataLinksItCannotBind() throws Exception {
        Hub hub = net.hub("datalink-refusals");
        Traverse linked = node(hub, true);
        LinkAuthentication token = new LinkAuthentication(LoopbackHubNetwork.TOKEN);
        byte[][] otherNonces = {LinkAuthentication.newNonce(), LinkAuthentication.newNonce()};
        LinkTls stranger = LinkTls.of(IdentityKey.generate());
        assertThatThrownBy(() -> open(hub, stranger.key().id(), stranger, token, otherNonces)
                        .close())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("has no link to hub");
        NodeId linkedId = linked.identity().id().orElseThrow();
        // Another key cannot state the node's id: refused before the token's proof is looked at.
        assertThatThrownBy(() ->
                        open(hub, linkedId, stranger, token, linkNonces(linked)).close())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("AUTH")
                .hasMessageContaining(
                        "is not the id of the key it proved (" + stranger.key().id() + ")");
        // Nor do the key and the token alone bind a data link to a node: the proof covers the handshake of the
        // node's own link.
        assertThatThrownBy(() ->
                        open(hub, linkedId, tlsOf(linked), token, otherNonces).close())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("AUTH")
                .hasMessageContaining("not bound to the link of node");
        assertThatThrownBy(() -> open(
                                hub,
                                linkedId,
                                tlsOf(linked),
                                new LinkAuthentication("another-token"),
                                linkNonces(linked))
                        .close())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("AUTH");
        assertThatThrownBy(() -> open(hub, linkedId, tlsOf(linked), token, linkNonces(linked))
                        .close())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("DUPLICATE_LINK")
                .hasMessageContaining("has a data link already");
        // Nothing of that touched the node's own data link.
        assertThat(relayLinkOf(linked).dataLinkRelay()).isNotNull();
        assertThat(relayLinkOf(linked).isLinked()).isTrue();
    }

    @Test
    void anythingButRelayFramesOnADataLinkClosesIt() throws Exception {
        Hub hub = net.hub("datalink-protocol");
        // A node without a data link of its own; the test binds one to it, knowing its link's handshake.
        Traverse node = node(hub, false);
        NodeId id = node.identity().id().orElseThrow();
        try (HubDataLink fake = boundDataLink(hub, node)) {
            fake.writeLock().lock();
            try {
                fake.write(List.of(new Lookup(1, LookupKind.NODE, id.toString())));
            } finally {
                fake.writeLock().unlock();
            }
            List<LinkMessage> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            assertThatThrownBy(() -> {
                        while (System.nanoTime() < deadline) {
                            fake.read(deadline, got::add);
                        }
                    })
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("closed the data link");
            assertThat(got)
                    .anySatisfy(m -> assertThat(m).isInstanceOfSatisfying(Reject.class, r -> {
                        assertThat(r.code()).isEqualTo(RejectCode.PROTOCOL);
                        assertThat(r.reason()).contains("LOOKUP on a data link");
                    }));
        }
        // Bound together: the node's link went with it, and the node links again.
        await().atMost(Duration.ofSeconds(10)).until(() -> relayLinkOf(node).isLinked());
    }

    @Test
    void aBrokenDataLinkResetsItsConnectionsAndTheNodeLinksAgainWithANewOne() throws Exception {
        Hub hub = net.hub("datalink-break");
        Traverse server = node(hub, true);
        Traverse client = node(hub, true);
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT));
        VirtualSocketAddress address = (VirtualSocketAddress) listening.getLocalSocketAddress();
        CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return listening.accept();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        Socket s = net.closeLater(connect(client, address));
        net.closeLater(accepted.get(10, TimeUnit.SECONDS));
        DataLinkRelay broken = relayLinkOf(client).dataLinkRelay();

        broken.link().close();

        long started = System.nanoTime();
        assertThatThrownBy(() -> s.getInputStream().read())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("data link");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            DataLinkRelay now = relayLinkOf(client).dataLinkRelay();
            return now != null && now != broken && relayLinkOf(client).isLinked();
        });
        CompletableFuture<Integer> second = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket a = listening.accept()) {
                        return a.getInputStream().read();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        LoopbackHubNetwork.awaitRoute(client, server);
        try (Socket again = connect(client, address)) {
            again.getOutputStream().write(42);
        }
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(42);
    }

    private static HubDataLink open(Hub hub, NodeId node, LinkTls tls, LinkAuthentication token, byte[][] linkNonces)
            throws IOException {
        return HubDataLink.open(
                LoopbackHubNetwork.address(hub),
                null, // no proxy
                node,
                LoopbackHubNetwork.id(hub),
                "a node",
                token,
                tls,
                linkNonces[0],
                linkNonces[1],
                5_000,
                PooledByteBufAllocator.DEFAULT);
    }

    /** The nonces of the handshake of the node's current link. */
    static byte[][] linkNonces(Traverse node) throws ReflectiveOperationException {
        LinkSession session = relayLinkOf(node).session();
        return new byte[][] {session.clientNonce(), session.serverNonce()};
    }

    /**
     * A data link of the test's own, bound to the link of {@code node} (which must have none) and
     * switched to: the test sends DATA_LINK_SWITCH on the node's link and takes the hub's answer
     * there before the node sees it, so the hub reads this data link and sends the node's relayed
     * frames to it while the node itself goes on as a node without a data link.
     */
    static HubDataLink boundDataLink(Hub hub, Traverse node) throws Exception {
        HubDataLink fake = open(
                hub,
                node.identity().id().orElseThrow(),
                tlsOf(node),
                new LinkAuthentication(LoopbackHubNetwork.TOKEN),
                linkNonces(node));
        Channel link = relayLinkOf(node).session().channel();
        CompletableFuture<Void> hubSwitched = new CompletableFuture<>();
        link.pipeline().addBefore("hub-session", "test-takes-the-hub-switch", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof DataLinkSwitch) {
                    hubSwitched.complete(null);
                } else {
                    ctx.fireChannelRead(msg);
                }
            }
        });
        link.writeAndFlush(new DataLinkSwitch()).sync();
        hubSwitched.get(10, TimeUnit.SECONDS);
        return fake;
    }

    /** The node's relay link (Traverse keeps its node to itself; tests look inside). */
    /** The node's TLS under its key: what a test needs to open a data link in the node's name. */
    static LinkTls tlsOf(Traverse traverse) throws ReflectiveOperationException {
        java.lang.reflect.Field field = Traverse.class.getDeclaredField("node");
        field.setAccessible(true);
        return ((LocalNode) field.get(traverse)).hubLink().tls();
    }

    static NodeRelayLink relayLinkOf(Traverse traverse) throws ReflectiveOperationException {
        java.lang.reflect.Field field = Traverse.class.getDeclaredField("node");
        field.setAccessible(true);
        LocalNode node = (LocalNode) field.get(traverse);
        return (NodeRelayLink) node.hubLink().relayLink();
    }

    private static Socket connect(Traverse from, VirtualSocketAddress to) throws IOException {
        return from.socketFactory().createSocket(to.getHostString(), to.getPort());
    }

    /** Writes {@code bytes} of the seeded stream in writes of seeded sizes while reading the other end's to EOF in reads of seeded sizes. */
    private byte[] exchange(Socket s, long seed, int bytes) throws Exception {
        Random sizes = new Random(seed ^ 0x5DEECE66DL);
        return SeededStreams.exchange(
                s, threads, EVERY_SIZE, seed, bytes, () -> 1 + sizes.nextInt(sizes.nextBoolean() ? 16 : 200_000));
    }

    private static byte[] expectedDigest(long seed, int bytes) throws Exception {
        return SeededStreams.expectedDigest(EVERY_SIZE, seed, bytes);
    }

    /**
     * A seeded stream cut into writes of seeded sizes: runs of 1-byte writes, sizes around the
     * 8 KiB copy threshold and the 16 KiB long-frame threshold, and writes longer than a frame.
     */
    private static final SeededStreams.Shape EVERY_SIZE = (seed, bytes, piece) -> {
        Random content = new Random(seed);
        Random sizes = new Random(seed * 31 + 7);
        int[] shapes = {1, 7, 8 * 1024 - 1, 8 * 1024 + 1, 16 * 1024 - 13, 16 * 1024 + 40, 100_003, 131_072 + 5, 300_000
        };
        byte[] chunk = new byte[300_000];
        for (int left = bytes; left > 0; ) {
            int shape = shapes[sizes.nextInt(shapes.length)];
            int runs = shape == 1 ? 1 + sizes.nextInt(64) : 1;
            for (int r = 0; r < runs && left > 0; r++) {
                int n = Math.min(left, shape == 1 ? 1 : 1 + sizes.nextInt(shape));
                for (int i = 0; i < n; i++) {
                    chunk[i] = (byte) content.nextInt();
                }
                piece.accept(chunk, n);
                left -= n;
            }
        }
    };
}
