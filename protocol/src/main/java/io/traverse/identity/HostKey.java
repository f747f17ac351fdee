package io.traverse.identity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Optional;

/**
 * Names the network stack a node runs in, so that a caller can tell from a target's identity —
 * not from a lucky address match — whether the target shares its loopback and its interface
 * addresses. Two nodes have the same key exactly when they run on the same kernel in the same
 * network namespace: on Linux a digest of the kernel's boot id (the same for every process
 * until reboot, containers included) and the inode of the process's network namespace (different
 * for each namespace, whose loopback and addresses are its own). The digest says nothing about
 * the host beyond that. Where either is unknown (not Linux, /proc hidden) there is no key, and
 * callers fall back on comparing addresses.
 */
public final class HostKey {
    /** Longest key the text form accepts (ours are 16 characters: 80 bits of the digest). */
    static final int MAX_LENGTH = 32;

    private static final Optional<String> LOCAL =
            Optional.ofNullable(of(Path.of("/proc/sys/kernel/random/boot_id"), Path.of("/proc/self/ns/net")));

    private HostKey() {}

    /** The key of the stack this JVM runs in, if it can be known. */
    public static Optional<String> local() {
        return LOCAL;
    }

    /** The key for a boot id file and a network namespace link; null if either cannot be read. */
    static String of(Path bootIdFile, Path namespaceLink) {
        try {
            String bootId =
                    Files.readString(bootIdFile, StandardCharsets.US_ASCII).trim();
            String namespace = Files.readSymbolicLink(namespaceLink).toString(); // "net:[4026531840]"
            if (bootId.isEmpty() || namespace.isEmpty()) {
                return null;
            }
            return of(bootId, namespace);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** The key for a boot id and a network namespace name. */
    static String of(String bootId, String namespace) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((bootId + "\n" + namespace).getBytes(StandardCharsets.US_ASCII));
            return NodeId.base32(Arrays.copyOf(digest, 10));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e); // every JVM has it
        }
    }

    /** 1–32 of a-z and 0-9: what the text form accepts, leaving room for longer keys later. */
    static boolean isWellFormed(String key) {
        int n = key.length();
        if (n == 0 || n > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
                return false;
            }
        }
        return true;
    }
}
