package io.traverse.hub.identity;

import io.traverse.identity.NodeId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * A hub id kept in a small text file: generated at random (128 bits, {@link NodeId#random()})
 * the first time, read back at every later start. The file holds the id on one line; lines
 * starting with {@code #} are comments. It is written whole or not at all (a temporary file
 * in the same directory, flushed to disk, then renamed over), so a crash never leaves half an
 * id. A file that is there but cannot be read or parsed stops the hub with a message naming
 * it: silently generating a new id would make the hub a stranger to its network.
 */
final class HubIdFile implements HubIdSource {
    /** Far more than an id and its comments: anything bigger is not an id file. */
    static final int MAX_BYTES = 4096;

    private final Path file;

    HubIdFile(Path file) {
        this.file = file.toAbsolutePath().normalize();
    }

    @Override
    public Loaded load() throws IOException {
        if (!Files.exists(file)) {
            // Absent, or its directory cannot be looked into: then writing fails too, and says why.
            NodeId id = NodeId.random();
            write(id);
            return new Loaded(id, "generated new hub id " + id + " in " + file);
        }
        if (!Files.isRegularFile(file)) {
            throw new IdFileException(
                    "the hub id file " + file + " is not a regular file; the hub does not start under a new id:"
                            + " move it away, or choose another place (--state-dir or --id-file)",
                    null);
        }
        byte[] content;
        try {
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                throw corrupt("it is " + size + " bytes long, an id file is a few lines");
            }
            content = Files.readAllBytes(file);
        } catch (IdFileException e) {
            throw e;
        } catch (IOException e) {
            throw new IdFileException(
                    "cannot read the hub id file " + file + " (" + reason(e) + "); the hub does not start under"
                            + " a new id: make the file readable, or delete it to give this hub a new id",
                    e);
        }
        NodeId id = parse(new String(content, StandardCharsets.UTF_8));
        return new Loaded(id, "hub id " + id + " from " + file);
    }

    private NodeId parse(String text) throws IdFileException {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                lines.add(trimmed);
            }
        }
        if (lines.isEmpty()) {
            throw corrupt("it holds no id");
        }
        if (lines.size() > 1) {
            throw corrupt("it holds " + lines.size() + " lines besides comments, an id is one");
        }
        try {
            return NodeId.of(lines.get(0));
        } catch (IllegalArgumentException e) {
            throw corrupt(e.getMessage());
        }
    }

    private IdFileException corrupt(String what) {
        return new IdFileException(
                "the hub id file " + file + " does not hold a hub id: " + what
                        + "; correct it, or delete it to give this hub a new id (other hubs then see a new hub)",
                null);
    }

    private void write(NodeId id) throws IOException {
        Path directory = file.getParent();
        String content = "# Traverse hub id, generated " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ".\n"
                + "# Other hubs know this hub by it. Delete this file to give the hub a new id; never copy it to a second hub\n"
                + "# (two hubs with one id cannot both join a network). See docs/operations.md, \"Hub ids\".\n"
                + id + "\n";
        Path temp = null;
        try {
            Files.createDirectories(directory);
            temp = Files.createTempFile(directory, "." + file.getFileName() + ".", ".tmp");
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file);
            }
            temp = null;
            syncDirectory(directory);
        } catch (IOException e) {
            throw new IdFileException(
                    "cannot keep a new hub id in " + file + " (" + reason(e) + "); make " + directory
                            + " writable, or choose another place (--state-dir or --id-file)",
                    e);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // the failure reported above says more
                }
            }
        }
    }

    /** So that the rename survives a power cut; not every platform can open a directory, and then the rename stands alone. */
    private static void syncDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | RuntimeException notSupported) {
            // best effort
        }
    }

    private static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied: " + e.getMessage();
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason() + (fs.getFile() == null ? "" : ": " + fs.getFile());
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    @Override
    public String toString() {
        return "kept in " + file;
    }

    /** The message says it all: which file, what is wrong, what to do. */
    static final class IdFileException extends IOException {
        private static final long serialVersionUID = 1L;

        IdFileException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
