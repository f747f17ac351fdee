package io.traverse.security;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts any peer that presents an Ed25519 key: who the peer is follows from the key (its id),
 * which the link handshake compares with the id the peer states. No certificate authority, no
 * dates, no host names; TLS itself proves that the peer holds the private key.
 */
final class KeyBoundTrust extends X509ExtendedTrustManager {
    private static final X509Certificate[] NONE = new X509Certificate[0];

    private static void check(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("the peer presented no key");
        }
        if (!IdentityKey.isEd25519(chain[0].getPublicKey())) {
            throw new CertificateException(
                    "the peer's key is " + chain[0].getPublicKey().getAlgorithm() + ", not an Ed25519 identity key");
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return NONE;
    }
}
