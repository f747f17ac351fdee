package io.traverse.testbed;

import io.traverse.Traverse;
import io.traverse.rmi.TraverseRmiClientSocketFactory;
import io.traverse.rmi.TraverseRmiServerSocketFactory;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Random;

/**
 * Java RMI over Traverse, checked end to end: a remote object that digests what it is
 * sent and sends random bytes of a given seed, exported in a registry under a name registered at
 * the hub network; a client that looks it up by that name, uploads and downloads with SHA-256
 * checks, and makes many small calls.
 */
public final class RmiChecksums {
    /** The registry's port on the server's node (RMI's default). */
    public static final int REGISTRY_PORT = 1099;
    /** The name the object is bound under in the registry. */
    public static final String BINDING = "Checksums";

    private RmiChecksums() {}

    /** What the remote object offers. */
    public interface Checksums extends Remote {
        /** The SHA-256 of {@code data}. */
        byte[] sha256(byte[] data) throws RemoteException;

        /** {@code length} bytes from {@code new Random(seed)}. */
        byte[] random(int length, long seed) throws RemoteException;

        /** {@code x + 1}: a small call. */
        long next(long x) throws RemoteException;
    }

    private static final class Served implements Checksums {
        @Override
        public byte[] sha256(byte[] data) {
            return digest(data);
        }

        @Override
        public byte[] random(int length, long seed) {
            byte[] out = new byte[length];
            new Random(seed).nextBytes(out);
            return out;
        }

        @Override
        public long next(long x) {
            return x + 1;
        }
    }

    /** Keeps the registry and the object reachable (RMI holds exported objects weakly once unbound). */
    private static volatile Object[] exported;

    /**
     * Makes a registry on {@code node}'s virtual port {@link #REGISTRY_PORT} and exports the object in
     * it, both under {@code name} at the hub network.
     */
    public static void export(Traverse node, String name) throws RemoteException {
        TraverseRmiServerSocketFactory ssf = new TraverseRmiServerSocketFactory(name, node);
        Registry registry = LocateRegistry.createRegistry(REGISTRY_PORT, ssf.clientFactory(), ssf);
        Served served = new Served();
        registry.rebind(BINDING, UnicastRemoteObject.exportObject(served, 0, ssf.clientFactory(), ssf));
        exported = new Object[] {registry, served};
    }

    /** What a client's calls found. */
    public record Outcome(long lookupMillis, long elapsedMillis, long up, long down, int calls) {
        public String line() {
            return "rmi ok lookup-ms=" + lookupMillis + " elapsed-ms=" + elapsedMillis + " up=" + up + " down=" + down
                    + " calls=" + calls;
        }
    }

    /**
     * Looks up the object by {@code name} through this JVM's default node, sends {@code up} bytes and
     * checks their digest, fetches {@code down} bytes and checks them, and makes {@code calls} small
     * calls. Throws if anything does not check out.
     */
    public static Outcome call(String name, int up, int down, int calls) throws Exception {
        long start = System.nanoTime();
        Registry registry = LocateRegistry.getRegistry(name, REGISTRY_PORT, new TraverseRmiClientSocketFactory(name));
        Checksums remote = (Checksums) registry.lookup(BINDING);
        long lookupMillis = (System.nanoTime() - start) / 1_000_000;
        Random random = new Random(name.hashCode());
        byte[] data = new byte[up];
        random.nextBytes(data);
        if (!Arrays.equals(remote.sha256(data), digest(data))) {
            throw new IllegalStateException("the server's SHA-256 of " + up + " bytes sent differs from the client's");
        }
        long seed = random.nextLong();
        byte[] fetched = remote.random(down, seed);
        byte[] expected = new byte[down];
        new Random(seed).nextBytes(expected);
        if (fetched.length != down || !Arrays.equals(digest(fetched), digest(expected))) {
            throw new IllegalStateException(
                    "the " + fetched.length + " bytes fetched differ from the " + down + " expected");
        }
        long x = random.nextLong();
        for (int i = 0; i < calls; i++) {
            long answer = remote.next(x);
            if (answer != x + 1) {
                throw new IllegalStateException("call " + i + " answered " + answer + " for " + x);
            }
            x = answer;
        }
        return new Outcome(lookupMillis, (System.nanoTime() - start) / 1_000_000, up, down, calls);
    }

    private static byte[] digest(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
