package io.traverse.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The HTTP proxy a node reaches its hub through: where it is, the optional user and
 * password for basic authentication, which hosts are reached without it, and where the setting
 * came from. Immutable; the password never appears in {@link #toString()} or an error message.
 *
 * <p>Forms of {@code traverse.http.proxy}: {@code host:port}, {@code user:password@host:port}
 * (an optional {@code http://} in front), {@code file:PATH} naming a file whose first line has one
 * of those forms (it must not be readable by group or others when it holds a password), or
 * {@code none} (no proxy, whatever the JDK properties say). Unset, the JDK's
 * {@code https.proxyHost}/{@code https.proxyPort}, else {@code http.proxyHost}/{@code http.proxyPort}
 * apply, with {@code https.proxyUser}/{@code http.proxyUser} and the matching password properties.
 */
public final class HttpProxy {
    /** The JDK's hosts that never go through a proxy when {@code http.nonProxyHosts} is not set. */
    public static final String JDK_NON_PROXY_HOSTS = "localhost|127.*|[::1]";

    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]+]");

    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final List<Pattern> nonProxyHosts;
    private final String nonProxyHostsText;
    private final String origin;

    private HttpProxy(String host, int port, String user, String password, String nonProxyHosts, String origin) {
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
        this.nonProxyHostsText = nonProxyHosts;
        this.nonProxyHosts = patterns(nonProxyHosts);
        this.origin = origin;
    }

    /**
     * Reads the value of {@code traverse.http.proxy}; empty when the value is {@code none}.
     *
     * @throws IllegalArgumentException saying what is wrong (never showing the password)
     */
    public static Optional<HttpProxy> parse(String value, String nonProxyHosts, String origin) {
        String v = value.trim();
        if (v.equalsIgnoreCase("none")) {
            return Optional.empty();
        }
        if (v.startsWith("file:")) {
            Path file = Path.of(v.substring("file:".length()));
            String line = readFile(file);
            return Optional.of(parseAuthority(line, nonProxyHosts, origin + ", file " + file, file));
        }
        return Optional.of(parseAuthority(v, nonProxyHosts, origin, null));
    }

    /**
     * The proxy the JDK's properties name, as Java users set them: {@code https.proxyHost} first
     * (the hub link is a tunnel, as HTTPS is), else {@code http.proxyHost}.
     */
    public static Optional<HttpProxy> fromJdkProperties(Properties properties, String nonProxyHosts) {
        for (String scheme : List.of("https", "http")) {
            String host = properties.getProperty(scheme + ".proxyHost", "").trim();
            if (host.isEmpty()) {
                continue;
            }
            String origin = "system property " + scheme + ".proxyHost";
            String portText = properties
                    .getProperty(scheme + ".proxyPort", scheme.equals("https") ? "443" : "80")
                    .trim();
            int port = port(portText, scheme + ".proxyPort");
            if (!HOST.matcher(host).matches()) {
                throw new IllegalArgumentException(origin + " '" + host + "' is not a host name or IP address");
            }
            String user = properties.getProperty(scheme + ".proxyUser", "").trim();
            String password = properties.getProperty(scheme + ".proxyPassword", "");
            return Optional.of(new HttpProxy(
                    host, port, user.isEmpty() ? null : user, user.isEmpty() ? null : password, nonProxyHosts, origin));
        }
        return Optional.empty();
    }

    private static HttpProxy parseAuthority(String text, String nonProxyHosts, String origin, Path file) {
        String v = text.trim();
        if (v.regionMatches(true, 0, "http://", 0, 7)) {
            v = v.substring(7);
        }
        if (v.endsWith("/")) {
            v = v.substring(0, v.length() - 1);
        }
        String user = null;
        String password = null;
        int at = v.lastIndexOf('@');
        if (at >= 0) {
            String credentials = v.substring(0, at);
            v = v.substring(at + 1);
            int colon = credentials.indexOf(':');
            user = colon < 0 ? credentials : credentials.substring(0, colon);
            password = colon < 0 ? "" : credentials.substring(colon + 1);
            if (user.isEmpty()) {
                throw new IllegalArgumentException("the user before '@' is empty");
            }
            if (file != null && !password.isEmpty()) {
                requirePrivate(file);
            }
        }
        int colon = v.lastIndexOf(':');
        if (colon < 0 || v.endsWith("]")) {
            throw new IllegalArgumentException("the proxy '" + v + "' has no ':PORT'");
        }
        String host = v.substring(0, colon);
        if (!HOST.matcher(host).matches()) {
            throw new IllegalArgumentException("'" + host + "' is not a host name or IP address");
        }
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        }
        return new HttpProxy(
                host, port(v.substring(colon + 1), "the proxy's port"), user, password, nonProxyHosts, origin);
    }

    /** A {@code traverse.http.proxy} value fit for a message: any password replaced by {@code ****}. */
    public static String withoutPassword(String value) {
        if (value == null) {
            return "";
        }
        int at = value.lastIndexOf('@');
        if (at < 0) {
            return value;
        }
        String credentials = value.substring(0, at);
        int colon = credentials.indexOf(':', credentials.startsWith("http://") ? 7 : 0);
        return colon < 0 ? value : credentials.substring(0, colon) + ":****" + value.substring(at);
    }

    private static String readFile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the proxy file " + file + ": " + e);
        }
        for (String line : lines) {
            if (!line.isBlank() && !line.trim().startsWith("#")) {
                return line.trim();
            }
        }
        throw new IllegalArgumentException(
                "the proxy file " + file + " holds no line of the form [user:password@]host:port");
    }

    /** A password file that others can read is refused, not used with a shrug. */
    private static void requirePrivate(Path file) {
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (view == null) {
            return; // not a POSIX file system: nothing to check against
        }
        Set<PosixFilePermission> permissions;
        try {
            permissions = view.readAttributes().permissions();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the permissions of the proxy file " + file + ": " + e);
        }
        if (permissions.contains(PosixFilePermission.GROUP_READ)
                || permissions.contains(PosixFilePermission.OTHERS_READ)) {
            throw new IllegalArgumentException("the proxy file " + file + " holds a password but is readable by "
                    + (permissions.contains(PosixFilePermission.OTHERS_READ) ? "everyone" : "its group") + " (mode "
                    + PosixFilePermissions.toString(permissions) + "); make it private: chmod 600 " + file);
        }
    }

    private static int port(String text, String what) {
        int port;
        try {
            port = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a number");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(what + " " + port + " is not within 1-65535");
        }
        return port;
    }

    /** {@code http.nonProxyHosts} form: {@code |}-separated host names or addresses, {@code *} at either end a wildcard. */
    static List<Pattern> patterns(String nonProxyHosts) {
        List<Pattern> out = new ArrayList<>();
        for (String part : nonProxyHosts.split("\\|")) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            if (p.startsWith("[") && p.endsWith("]")) {
                p = p.substring(1, p.length() - 1);
            }
            if (p.isEmpty()) {
                continue;
            }
            StringBuilder regex = new StringBuilder();
            for (char c : p.toCharArray()) {
                regex.append(c == '*' ? ".*" : Pattern.quote(String.valueOf(c)));
            }
            out.add(Pattern.compile(regex.toString()));
        }
        return out;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** {@code host:port} (IPv6 in brackets), never with the credentials. */
    public String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * {@code host:port} of a destination as an HTTP request's target (a CONNECT's, a long-poll
     * session's {@code Host}): its name if it has one unresolved, else its address.
     */
    public static String authorityOf(java.net.InetSocketAddress destination) {
        String host = destination.isUnresolved() || destination.getAddress() == null
                ? destination.getHostString()
                : destination.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + destination.getPort();
    }

    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    /** The password for basic authentication; only for the proxy's Proxy-Authorization header, never for logs. */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /** The {@code Proxy-Authorization} value for basic authentication, when a user is set. */
    public Optional<String> basicAuthorization() {
        if (user == null) {
            return Optional.empty();
        }
        return Optional.of("Basic "
                + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }

    /** Where the setting came from, for messages. */
    public String origin() {
        return origin;
    }

    public String nonProxyHosts() {
        return nonProxyHostsText;
    }

    /** True unless {@code host} (a name or IP literal) matches one of the non-proxy hosts. */
    public boolean appliesTo(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        for (Pattern p : nonProxyHosts) {
            if (p.matcher(h).matches()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "http://" + (user == null ? "" : user + ":****@") + authority() + " (from " + origin + ")";
    }
}
