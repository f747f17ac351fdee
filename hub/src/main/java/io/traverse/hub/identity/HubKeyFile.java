package io.traverse.hub.identity;

import io.traverse.security.KeyFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A hub key kept in a {@link KeyFile}, and locked while the hub runs: a lock on {@code <file>.lock}
 * (fcntl, which NFS honours too), so that a second hub started on the same state directory (an
 * NFS home shared by two frontends, a copied unit) refuses to start with a clear line rather than
 * joining the network under the same id, where both would be refused as duplicates.
 */
final class HubKeyFile implements HubKeySource {
    private final Path file;

    HubKeyFile(Path file) {
        this.file = file.toAbsolutePath().normalize();
    }

    @Override
    public Loaded load() throws IOException {
        Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
        FileChannel channel;
        try {
            Files.createDirectories(file.getParent());
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new KeyFile.KeyFileException(
                    "cannot lock the hub key file " + file + " (" + e.getMessage() + "); make " + file.getParent()
                            + " writable, or choose another place (--state-dir or --key-file)",
                    e);
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by this very process: another hub in this JVM
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            channel.close();
            throw new KeyFile.KeyFileException("another hub runs with the key in " + file + " (it holds " + lockFile
                    + "): two hubs with one key are one id, and the network would refuse both; give this hub its own"
                    + " --state-dir or --key-file");
        }
        FileLock held = lock;
        try {
            KeyFile.Loaded loaded = KeyFile.loadOrCreate(file, "hub");
            return new Loaded(loaded.key(), loaded.report(), () -> {
                held.release();
                channel.close();
            });
        } catch (IOException | RuntimeException e) {
            held.release();
            channel.close();
            throw e;
        }
    }

    @Override
    public String toString() {
        return "kept in " + file;
    }
}
