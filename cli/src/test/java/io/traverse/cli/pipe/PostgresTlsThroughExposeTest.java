package io.traverse.cli.pipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.ConnectionInfo;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseListener;
import io.traverse.TraverseServerSocket;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real database driver's own TLS on top of Traverse: pgjdbc with {@code sslmode=require} and
 * {@code socketFactory=io.traverse.TraverseSocketFactory} (the drop-in factory, loaded by class name
 * on the default node) connects by a registered name to a real PostgreSQL 15 with {@code ssl=on},
 * made reachable through the hub by {@link ExposedService} ({@code traverse expose}). With the
 * client's modules forced to {@code routed}, the bytes are PostgreSQL's TLS inside Traverse's
 * end-to-end seal inside the hub's relay; with {@code direct}, the same TLS on a kernel socket.
 *
 * <p>The server admits the test user only with TLS ({@code hostssl}), and says so itself
 * ({@code pg_stat_ssl}); both nodes report the module. Then 10,000 rows of random payloads (the seed
 * is logged) go in, their count, bytes and SHA-256 are computed by the server and again over the
 * rows read back, each against the client's own; and 1 MiB of bytea makes the round trip the same way.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PostgresTlsThroughExposeTest {
    private static final Logger log = LoggerFactory.getLogger(PostgresTlsThroughExposeTest.class);
    private static final String TOKEN = "pg-tls-test-token";
    private static final String NAME = "pg-tls";
    private static final int VIRTUAL_PORT = 5432;
    private static final int ROWS = 10_000;
    private static final int MAX_PAYLOAD = 1024;
    private static final int BLOB = 1 << 20;
    /** The default node's settings: what an application sets in its system properties or environment. */
    private static final List<String> CLIENT_PROPERTIES =
            List.of("traverse.hubs", "traverse.token", "traverse.modules", "traverse.discovery", "traverse.bind");

    private static LoopbackPostgres postgres;

    private final List<AutoCloseable> open = new ArrayList<>();

    /** One server for the class, started by the first test: a skip (not installed) then shows on each test, with its reason. */
    @BeforeEach
    void startPostgres() throws Exception {
        if (postgres == null) {
            postgres = LoopbackPostgres.start();
        }
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
            postgres = null;
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        try {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        } finally {
            CLIENT_PROPERTIES.forEach(System::clearProperty);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"routed", "direct"})
    void pgjdbcWithSslmodeRequireRunsItsTlsOverTraverseWithEveryByteIntact(String module) throws Exception {
        Hub hub = Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .name("pg-hub")
                .token(TOKEN)
                .build());
        open.add(hub);
        InetSocketAddress hubAddress =
                new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort());

        // The database's side: traverse expose of 127.0.0.1:<postgres> as pg-tls:5432, on a node of its own.
        Traverse serverNode = Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(TOKEN)
                .discovery(false)
                .hubs(List.of(hubAddress))
                .build());
        open.add(serverNode);
        List<ConnectionInfo> accepted = new CopyOnWriteArrayList<>();
        serverNode.addListener(recorder(accepted));
        assertThat(serverNode.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        RunningPipe<TraverseServerSocket> exposure = new ExposedService(NAME, postgres.port(), NAME, VIRTUAL_PORT)
                .start(serverNode, PipeCounters.NONE, true);
        open.add(exposure);

        // The application's side: the default node, configured as an application would (system properties),
        // behind the socket factory pgjdbc loads by class name; its modules forced to the one under test.
        Map.of(
                        "traverse.hubs",
                        "127.0.0.1:" + hubAddress.getPort(),
                        "traverse.token",
                        TOKEN,
                        "traverse.modules",
                        module,
                        "traverse.discovery",
                        "false",
                        "traverse.bind",
                        "127.0.0.1")
                .forEach(System::setProperty);
        Traverse client = Traverse.getDefault();
        open.add(client);
        assertThat(client.modules())
                .as("a default node started for this test (none may be left from another)")
                .containsExactly(module);
        assertThat(client.config().encryptRelayed()).isTrue();
        List<ConnectionInfo> connected = new CopyOnWriteArrayList<>();
        client.addListener(recorder(connected));
        assertThat(client.awaitHubLink(Duration.ofSeconds(10))).isTrue();

        String url = "jdbc:postgresql://" + NAME + ":" + VIRTUAL_PORT + "/postgres";
        assertThatThrownBy(() -> DriverManager.getConnection(url, driverProperties("disable"))
                        .close())
                .as("without TLS the server refuses the session (pg_hba.conf: hostssl only)")
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("no encryption");

        long started = System.nanoTime();
        try (Connection db = DriverManager.getConnection(url, driverProperties("require"))) {
            try (Statement s = db.createStatement();
                    ResultSet r = s.executeQuery(
                            "SELECT ssl, version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
                assertThat(r.next()).isTrue();
                assertThat(r.getBoolean("ssl")).as("the server saw TLS").isTrue();
                log.info("{}: PostgreSQL session in {} with {}", module, r.getString("version"), r.getString("cipher"));
                assertThat(r.getString("version")).isIn("TLSv1.2", "TLSv1.3");
            }
            await().atMost(Duration.ofSeconds(5))
                    .alias("this session, and no other, piped by the exposure")
                    .until(exposure::openConnections, n -> n == 1);
            await().atMost(Duration.ofSeconds(5)).until(() -> connected.size() >= 2 && accepted.size() >= 2);
            for (ConnectionInfo c : connected) {
                assertThat(c.module()).isEqualTo(module);
                assertThat(c.target().getPort()).isEqualTo(VIRTUAL_PORT);
                assertThat(c.hubsTraversed()).isEqualTo(module.equals("routed") ? 1 : 0);
            }
            for (ConnectionInfo c : accepted) {
                assertThat(c.module()).isEqualTo(module);
                assertThat(c.accepted()).isTrue();
            }
            long seed = new SecureRandom().nextLong();
            log.info("{}: rows and blob from seed {}", module, seed);
            rowsRoundTrip(db, new Random(seed), seed);
            blobRoundTrip(db, new Random(seed + 1), seed);
        }
        log.info("{}: the session took {} ms", module, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /** 10,000 rows of random length and bytes: the server's count, bytes and SHA-256, and those of the rows read back. */
    private static void rowsRoundTrip(Connection db, Random random, long seed) throws Exception {
        try (Statement s = db.createStatement()) {
            s.execute("DROP TABLE IF EXISTS payloads");
            s.execute("CREATE TABLE payloads (id int PRIMARY KEY, payload bytea NOT NULL)");
        }
        MessageDigest sent = MessageDigest.getInstance("SHA-256");
        long sentBytes = 0;
        db.setAutoCommit(false);
        try (PreparedStatement insert = db.prepareStatement("INSERT INTO payloads (id, payload) VALUES (?, ?)")) {
            for (int id = 1; id <= ROWS; id++) {
                byte[] payload = new byte[random.nextInt(MAX_PAYLOAD + 1)];
                random.nextBytes(payload);
                addRow(sent, id, payload);
                sentBytes += payload.length;
                insert.setInt(1, id);
                insert.setBytes(2, payload);
                insert.addBatch();
                if (id % 1000 == 0) {
                    insert.executeBatch();
                }
            }
        }
        db.commit();
        byte[] sentDigest = sent.digest();

        // The same digest computed by the server over what it stored: id and length as 4-byte big-endian, then the
        // bytes.
        try (Statement s = db.createStatement();
                ResultSet r = s.executeQuery(
                        "SELECT count(*), sum(length(payload)), sha256(string_agg("
                                + "int4send(id) || int4send(length(payload)) || payload, ''::bytea ORDER BY id)) FROM payloads")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getLong(1)).as("rows stored (seed %d)", seed).isEqualTo(ROWS);
            assertThat(r.getLong(2)).as("payload bytes stored (seed %d)", seed).isEqualTo(sentBytes);
            assertThat(r.getBytes(3))
                    .as("SHA-256 of the rows stored (seed %d)", seed)
                    .isEqualTo(sentDigest);
        }

        MessageDigest read = MessageDigest.getInstance("SHA-256");
        long readRows = 0;
        long readBytes = 0;
        try (Statement s = db.createStatement()) {
            s.setFetchSize(1000);
            try (ResultSet r = s.executeQuery("SELECT id, payload FROM payloads ORDER BY id")) {
                while (r.next()) {
                    byte[] payload = r.getBytes(2);
                    addRow(read, r.getInt(1), payload);
                    readRows++;
                    readBytes += payload.length;
                }
            }
        }
        db.commit();
        db.setAutoCommit(true);
        assertThat(readRows).as("rows read back (seed %d)", seed).isEqualTo(ROWS);
        assertThat(readBytes).as("payload bytes read back (seed %d)", seed).isEqualTo(sentBytes);
        assertThat(read.digest())
                .as("SHA-256 of the rows read back (seed %d)", seed)
                .isEqualTo(sentDigest);
    }

    /** 1 MiB in one bytea value: the server's length and SHA-256, then the value read back. */
    private static void blobRoundTrip(Connection db, Random random, long seed) throws Exception {
        byte[] blob = new byte[BLOB];
        random.nextBytes(blob);
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(blob);
        try (Statement s = db.createStatement()) {
            s.execute("DROP TABLE IF EXISTS blobs");
            s.execute("CREATE TABLE blobs (id int PRIMARY KEY, data bytea NOT NULL)");
        }
        try (PreparedStatement insert = db.prepareStatement("INSERT INTO blobs (id, data) VALUES (1, ?)")) {
            insert.setBytes(1, blob);
            assertThat(insert.executeUpdate()).isEqualTo(1);
        }
        try (Statement s = db.createStatement();
                ResultSet r = s.executeQuery("SELECT length(data), sha256(data), data FROM blobs WHERE id = 1")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getInt(1)).as("blob length stored (seed %d)", seed).isEqualTo(BLOB);
            assertThat(r.getBytes(2))
                    .as("SHA-256 of the blob stored (seed %d)", seed)
                    .isEqualTo(digest);
            byte[] back = r.getBytes(3);
            assertThat(back.length).as("blob length read back (seed %d)", seed).isEqualTo(BLOB);
            assertThat(MessageDigest.getInstance("SHA-256").digest(back))
                    .as("SHA-256 of the blob read back (seed %d)", seed)
                    .isEqualTo(digest);
        }
    }

    private static void addRow(MessageDigest digest, int id, byte[] payload) {
        digest.update(ByteBuffer.allocate(8).putInt(id).putInt(payload.length).array());
        digest.update(payload);
    }

    private static Properties driverProperties(String sslmode) {
        Properties p = new Properties();
        p.setProperty("user", LoopbackPostgres.USER);
        p.setProperty("password", postgres.password());
        p.setProperty("socketFactory", "io.traverse.TraverseSocketFactory");
        p.setProperty("sslmode", sslmode);
        p.setProperty("connectTimeout", "20");
        p.setProperty("socketTimeout", "60");
        p.setProperty("loginTimeout", "30");
        p.setProperty("reWriteBatchedInserts", "true");
        p.setProperty("ApplicationName", "traverse-pg-tls-test");
        return p;
    }

    private static TraverseListener recorder(List<ConnectionInfo> into) {
        return new TraverseListener() {
            @Override
            public void connected(ConnectionInfo connection) {
                into.add(connection);
            }
        };
    }
}
