package io.traverse.ssh;

import com.jcraft.jsch.HostKey;
import com.jcraft.jsch.HostKeyRepository;
import com.jcraft.jsch.UserInfo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A rule's known_hosts, read-only (strict host-key checking: nothing is ever learned), which
 * remembers the key each sshd presented, so that a refusal can name the host and the key's
 * fingerprint in OpenSSH's form ({@code SHA256:...}), the one an operator compares with
 * {@code ssh-keygen -lf}.
 */
final class CheckedHostKeys implements HostKeyRepository {
    /** What an sshd presented and what known_hosts said of it. */
    record Seen(int verdict, byte[] key) {}

    private final HostKeyRepository knownHosts;
    private final Path file;
    private final ConcurrentHashMap<String, Seen> seen = new ConcurrentHashMap<>();

    CheckedHostKeys(HostKeyRepository knownHosts, Path file) {
        this.knownHosts = knownHosts;
        this.file = file;
    }

    void forget(String host) {
        seen.remove(host);
    }

    Seen seen(String host) {
        return seen.get(host);
    }

    @Override
    public int check(String host, byte[] key) {
        int verdict = knownHosts.check(host, key);
        seen.put(host, new Seen(verdict, key.clone()));
        return verdict;
    }

    /** Why the host's key was refused, with the fingerprints involved. */
    String explain(String host, Seen seen) {
        String presented = fingerprint(seen.key()) + " (" + keyType(seen.key()) + ")";
        if (seen.verdict() == CHANGED) {
            StringBuilder listed = new StringBuilder();
            HostKey[] known = knownHosts.getHostKey(host, null);
            if (known != null) {
                for (HostKey k : known) {
                    listed.append(listed.length() == 0 ? "" : ", ")
                            .append(k.getType())
                            .append(' ')
                            .append(fingerprint(Base64.getDecoder().decode(k.getKey())));
                }
            }
            return "host key mismatch for " + host + ": it presented " + presented + ", but " + file + " lists "
                    + (listed.length() == 0 ? "another key" : listed)
                    + " for it (the host key changed, or someone is in the middle)";
        }
        return "unknown host key for " + host + ": it presented " + presented + ", which " + file
                + " does not list (strict host-key checking; add the host's key to that file if it is the right one)";
    }

    /** OpenSSH's form: SHA256 of the key blob, base64 without padding. */
    static String fingerprint(byte[] keyBlob) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(keyBlob);
            return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The algorithm name a key blob starts with, e.g. {@code ssh-ed25519}. */
    static String keyType(byte[] keyBlob) {
        try {
            ByteBuffer b = ByteBuffer.wrap(keyBlob);
            int length = b.getInt();
            if (length <= 0 || length > 64 || length > b.remaining()) {
                return "unknown type";
            }
            byte[] name = new byte[length];
            b.get(name);
            return new String(name, StandardCharsets.US_ASCII);
        } catch (RuntimeException e) {
            return "unknown type";
        }
    }

    @Override
    public void add(HostKey hostkey, UserInfo ui) {
        // strict: known_hosts is the operator's to edit, never learned from the network
    }

    @Override
    public void remove(String host, String type) {
        // read-only
    }

    @Override
    public void remove(String host, String type, byte[] key) {
        // read-only
    }

    @Override
    public String getKnownHostsRepositoryID() {
        return knownHosts.getKnownHostsRepositoryID();
    }

    @Override
    public HostKey[] getHostKey() {
        return knownHosts.getHostKey();
    }

    @Override
    public HostKey[] getHostKey(String host, String type) {
        return knownHosts.getHostKey(host, type);
    }
}
