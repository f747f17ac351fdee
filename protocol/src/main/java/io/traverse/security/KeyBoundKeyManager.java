package io.traverse.security;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Offers the one key and certificate of a node or hub, whatever the peer asks for. Given to TLS
 * directly rather than through a key store: Netty's key store route encrypts the key with a
 * password-based cipher only to decrypt it again, which made a TLS context cost tens of
 * milliseconds.
 */
final class KeyBoundKeyManager extends X509ExtendedKeyManager {
    private static final String ALIAS = "traverse";

    private final PrivateKey privateKey;
    private final X509Certificate[] chain;

    KeyBoundKeyManager(PrivateKey privateKey, X509Certificate certificate) {
        this.privateKey = privateKey;
        this.chain = new X509Certificate[] {certificate};
    }

    private String aliasFor(String[] keyTypes) {
        if (keyTypes == null) {
            return ALIAS;
        }
        for (String type : keyTypes) {
            if (aliasFor(type) != null) {
                return ALIAS;
            }
        }
        return null;
    }

    private static String aliasFor(String keyType) {
        return keyType == null || keyType.equals("EdDSA") || keyType.equals("Ed25519") ? ALIAS : null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return aliasFor(keyType) == null ? null : new String[] {ALIAS};
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return aliasFor(keyType);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        return aliasFor(keyType);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return aliasFor(keyType) == null ? null : new String[] {ALIAS};
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return aliasFor(keyType);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return aliasFor(keyType);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return ALIAS.equals(alias) ? chain.clone() : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return ALIAS.equals(alias) ? privateKey : null;
    }
}
