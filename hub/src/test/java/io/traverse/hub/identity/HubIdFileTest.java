package io.traverse.hub.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.traverse.identity.NodeId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HubIdFileTest {
    @TempDir
    Path dir;

    @Test
    void generatesARandomIdOnceAndReadsItBackAtEveryLaterStart() throws IOException {
        Path file = dir.resolve("state/traverse/hub-17000.id");
        HubIdSource.Loaded first = HubIdSource.file(file).load();
        assertThat(first.report()).isEqualTo("generated new hub id " + first.id() + " in " + file);
        assertThat(first.id().toString()).hasSize(26).matches("[a-z2-7]+");
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertThat(lines).last().isEqualTo(first.id().toString());
        assertThat(lines)
                .filteredOn(l -> !l.startsWith("#"))
                .containsExactly(first.id().toString());

        for (int restart = 0; restart < 3; restart++) {
            HubIdSource.Loaded again = HubIdSource.file(file).load();
            assertThat(again.id()).isEqualTo(first.id());
            assertThat(again.report()).isEqualTo("hub id " + first.id() + " from " + file);
        }
        // Written whole through a temporary file: none is left behind.
        try (Stream<Path> files = Files.list(file.getParent())) {
            assertThat(files).containsExactly(file);
        }
    }

    @Test
    void everyInstallationGetsItsOwnId() throws IOException {
        NodeId a = HubIdSource.file(dir.resolve("a/hub.id")).load().id();
        NodeId b = HubIdSource.file(dir.resolve("b/hub.id")).load().id();
        assertThat(a).isNotEqualTo(b);
    }

    @Test
    void anIdWrittenByHandIsTakenAsItIs() throws IOException {
        Path file = dir.resolve("hub.id");
        Files.writeString(file, "# moved from the old machine\n\n  Site-A-Hub  \n");
        assertThat(HubIdSource.file(file).load().id()).isEqualTo(NodeId.of("site-a-hub"));
    }

    @Test
    void aCorruptFileStopsTheHubNamingTheFileAndIsLeftAlone() throws IOException {
        Path file = dir.resolve("hub.id");
        for (String content : List.of("not an id!\n", "", "# only a comment\n", "aaaa\nbbbb\n", "x".repeat(5000))) {
            Files.writeString(file, content);
            assertThatThrownBy(() -> HubIdSource.file(file).load())
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("the hub id file " + file + " does not hold a hub id: ")
                    .hasMessageContaining("delete it to give this hub a new id");
            assertThat(Files.readString(file)).as("never regenerated silently").isEqualTo(content);
        }
        Files.writeString(file, "not an id!\n");
        assertThatThrownBy(() -> HubIdSource.file(file).load()).hasMessageContaining("node id 'not an id!' must be");
        Files.writeString(file, "aaaa\nbbbb\n");
        assertThatThrownBy(() -> HubIdSource.file(file).load()).hasMessageContaining("holds 2 lines besides comments");
        Files.writeString(file, "");
        assertThatThrownBy(() -> HubIdSource.file(file).load()).hasMessageContaining("holds no id");
    }

    @Test
    void anUnreadableFileStopsTheHubNamingTheFile() throws IOException {
        Path file = Files.createDirectories(
                dir.resolve("hub.id")); // a directory where the file should be: unreadable as an id, for root too
        assertThatThrownBy(() -> HubIdSource.file(file).load())
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(
                        "the hub id file " + file + " is not a regular file; the hub does not start under a new id");
    }

    @Test
    void aPlaceWhereNoFileCanBeWrittenStopsTheHubNamingTheFile() throws IOException {
        // Permissions do not stop root (the tests may run as root); a file in place of the directory stops everyone.
        Path blocker = Files.writeString(dir.resolve("state"), "a file, not a directory");
        Path underAFile = blocker.resolve("traverse/hub-17000.id");
        assertThatThrownBy(() -> HubIdSource.file(underAFile).load())
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot keep a new hub id in " + underAFile + " (")
                .hasMessageContaining("make " + underAFile.getParent() + " writable");
        // procfs takes no new files, not even from root.
        Path proc = Path.of("/proc/self");
        assumeThat(Files.isDirectory(proc)).as("Linux /proc").isTrue();
        Path inProc = proc.resolve("traverse-hub.id");
        assertThatThrownBy(() -> HubIdSource.file(inProc).load())
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot keep a new hub id in " + inProc + " (")
                .hasMessageContaining("make /proc/self writable, or choose another place (--state-dir or --id-file)");
    }

    @Test
    void theOtherSourcesNeedNoFile() throws IOException {
        assertThat(HubIdSource.derivedFrom("site-a:17000").load().id())
                .isEqualTo(HubIdSource.idForName("site-a:17000"));
        assertThat(HubIdSource.ephemeral().load().id())
                .isNotEqualTo(HubIdSource.ephemeral().load().id());
    }
}
