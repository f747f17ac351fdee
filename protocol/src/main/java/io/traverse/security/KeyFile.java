package io.traverse.security;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An {@link IdentityKey} kept in a file: the private key (PKCS#8) and the public key (X.509) as
 * PEM blocks, after comment lines. The file is made readable and writable by its owner only, and
 * a key file that others may read is refused, as OpenSSH refuses such a private key: whoever can
 * read it can be this node or hub. It is written whole or not at all (a temporary file with those
 * permissions from the start, flushed, then renamed over), so a crash never leaves half a key.
 */
public final class KeyFile {
    /** Far more than a key and its comments: anything bigger is not a key file. */
    static final int MAX_BYTES = 8192;

    private static final Pattern PRIVATE =
            Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final Pattern PUBLIC =
            Pattern.compile("-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\\s]+)-----END PUBLIC KEY-----");
    private static final Set<PosixFilePermission> OWNER_ONLY =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    private KeyFile() {}

    /** A key and, for the log, where it came from. */
    public record Loaded(IdentityKey key, boolean created, String report) {}

    /**
     * The key kept in {@code file}; when there is no such file, a new key written there.
     *
     * @param whose what the key is, for messages: "hub", "node"
     * @throws IOException naming the file, what is wrong and what to do, when the file cannot be
     *         read, does not hold a key, may be read by others, or a new key cannot be kept
     */
    public static Loaded loadOrCreate(Path file, String whose) throws IOException {
        Path path = file.toAbsolutePath().normalize();
        if (!Files.exists(path)) {
            IdentityKey key = IdentityKey.generate();
            try {
                write(path, key, whose);
            } catch (FileAlreadyExistsException raced) {
                return load(path, whose);
            }
            return new Loaded(key, true, "generated a new " + whose + " key, id " + key.id() + ", in " + path);
        }
        return load(path, whose);
    }

    /** The key kept in {@code file}, which must exist. */
    public static Loaded load(Path file, String whose) throws IOException {
        Path path = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) {
            throw new KeyFileException("the " + whose + " key file " + path + " is not a regular file");
        }
        checkOwnerOnly(path, whose);
        long size = Files.size(path);
        if (size > MAX_BYTES) {
            throw corrupt(path, whose, "it is " + size + " bytes long, a key file is a few lines");
        }
        String text = Files.readString(path, StandardCharsets.US_ASCII);
        Matcher privateBlock = PRIVATE.matcher(text);
        Matcher publicBlock = PUBLIC.matcher(text);
        if (!privateBlock.find() || !publicBlock.find()) {
            throw corrupt(path, whose, "it does not hold a PRIVATE KEY and a PUBLIC KEY block");
        }
        try {
            KeyFactory factory = KeyFactory.getInstance(IdentityKey.ALGORITHM);
            PrivateKey privateKey = factory.generatePrivate(new PKCS8EncodedKeySpec(base64(privateBlock.group(1))));
            PublicKey publicKey = factory.generatePublic(new X509EncodedKeySpec(base64(publicBlock.group(1))));
            IdentityKey key = IdentityKey.of(privateKey, publicKey);
            return new Loaded(key, false, whose + " key, id " + key.id() + ", from " + path);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw corrupt(path, whose, e.getMessage());
        }
    }

    private static byte[] base64(String block) {
        return Base64.getMimeDecoder().decode(block.strip());
    }

    private static void checkOwnerOnly(Path path, String whose) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
        if (view == null) {
            return; // not a POSIX file system: its own access control applies
        }
        Set<PosixFilePermission> permissions = view.readAttributes().permissions();
        if (!OWNER_ONLY.containsAll(permissions)) {
            throw new KeyFileException("the " + whose + " key file " + path + " may be read by others ("
                    + PosixFilePermissions.toString(permissions) + "): whoever reads it can pose as this " + whose
                    + "; run 'chmod 600 " + path + "', and make a new key if others did read it");
        }
    }

    private static KeyFileException corrupt(Path path, String whose, String what) {
        return new KeyFileException("the " + whose + " key file " + path + " does not hold a key: " + what
                + "; correct it, or delete it to give this " + whose + " a new key (and with it a new id)");
    }

    private static void write(Path path, IdentityKey key, String whose) throws IOException {
        Path directory = path.getParent();
        Base64.Encoder pem = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        String content = "# Traverse " + whose + " key (Ed25519), generated "
                + Instant.now().truncatedTo(ChronoUnit.SECONDS)
                + ". Its id is " + key.id() + ".\n"
                + "# Keep it secret: whoever holds it is this " + whose + ". Never copy it to a second " + whose
                + " (see docs/security.md).\n"
                + "-----BEGIN PRIVATE KEY-----\n"
                + pem.encodeToString(key.privateKey().getEncoded())
                + "\n-----END PRIVATE KEY-----\n"
                + "-----BEGIN PUBLIC KEY-----\n"
                + pem.encodeToString(key.publicKey().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
        Path temp = null;
        try {
            Files.createDirectories(directory);
            boolean posix = Files.getFileAttributeView(directory, PosixFileAttributeView.class) != null;
            temp = posix
                    ? Files.createTempFile(
                            directory,
                            "." + path.getFileName() + ".",
                            ".tmp",
                            PosixFilePermissions.asFileAttribute(OWNER_ONLY))
                    : Files.createTempFile(directory, "." + path.getFileName() + ".", ".tmp");
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.US_ASCII));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            if (Files.exists(path)) {
                throw new FileAlreadyExistsException(path.toString()); // another process made one meanwhile
            }
            try {
                Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, path);
            }
            temp = null;
        } catch (FileAlreadyExistsException e) {
            throw e;
        } catch (IOException e) {
            throw new KeyFileException(
                    "cannot keep a new " + whose + " key in " + path + " (" + e.getMessage() + "); make " + directory
                            + " writable, or choose another place for the key",
                    e);
        } finally {
            if (temp != null) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /** The message says it all: which file, what is wrong, what to do. */
    public static final class KeyFileException extends IOException {
        private static final long serialVersionUID = 1L;

        public KeyFileException(String message) {
            super(message);
        }

        public KeyFileException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
