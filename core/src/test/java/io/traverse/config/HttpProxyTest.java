package io.traverse.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.TraverseConfig;
import io.traverse.TraverseConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** traverse.http.proxy, its file form and the JDK proxy properties it falls back on. */
class HttpProxyTest {
    @TempDir
    Path dir;

    @Test
    void hostAndPortWithoutCredentials() {
        HttpProxy proxy = TraverseConfig.builder()
                .httpProxy("proxy.example.org:3128")
                .build()
                .httpProxy()
                .orElseThrow();
        assertThat(proxy.host()).isEqualTo("proxy.example.org");
        assertThat(proxy.port()).isEqualTo(3128);
        assertThat(proxy.user()).isEmpty();
        assertThat(proxy.basicAuthorization()).isEmpty();
        assertThat(proxy.origin()).isEqualTo("code");
    }

    @Test
    void userAndPasswordGiveBasicAuthorizationAndNeverShowInText() {
        TraverseConfig config = TraverseConfig.builder()
                .httpProxy("http://alice:s3cret@198.18.0.9:8080/")
                .build();
        HttpProxy proxy = config.httpProxy().orElseThrow();
        assertThat(proxy.authority()).isEqualTo("198.18.0.9:8080");
        assertThat(proxy.user()).contains("alice");
        assertThat(proxy.password()).contains("s3cret");
        assertThat(proxy.basicAuthorization()).contains("Basic YWxpY2U6czNjcmV0");
        assertThat(proxy.toString()).contains("alice:****@198.18.0.9:8080").doesNotContain("s3cret");
        assertThat(config.toString()).doesNotContain("s3cret");
    }

    @Test
    void anInvalidValueIsRefusedWithoutShowingThePassword() {
        assertThatThrownBy(() -> TraverseConfig.builder().httpProxy("alice:s3cret@proxy"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.http.proxy")
                .hasMessageContaining("no ':PORT'")
                .hasMessageContaining("alice:****@proxy")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> TraverseConfig.builder().httpProxy("proxy:70000"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("70000");
        assertThatThrownBy(() -> TraverseConfig.builder().httpProxy("@proxy:80"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("user");
    }

    @Test
    void aPrivateFileHoldsTheCredentials() throws Exception {
        Path file = dir.resolve("proxy");
        Files.writeString(file, "# the site proxy\nbob:pa:ss@10.0.0.1:3128\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        HttpProxy proxy = TraverseConfig.builder()
                .httpProxy("file:" + file)
                .build()
                .httpProxy()
                .orElseThrow();
        assertThat(proxy.authority()).isEqualTo("10.0.0.1:3128");
        assertThat(proxy.user()).contains("bob");
        assertThat(proxy.password()).contains("pa:ss");
        assertThat(proxy.origin()).contains(file.toString());
    }

    @Test
    void aPasswordFileOthersCanReadIsRefusedSayingWhy() throws Exception {
        Path file = dir.resolve("proxy");
        Files.writeString(file, "bob:secret@10.0.0.1:3128\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> TraverseConfig.builder().httpProxy("file:" + file))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("readable by everyone")
                .hasMessageContaining("chmod 600 " + file)
                .hasMessageNotContaining("secret@");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        assertThatThrownBy(() -> TraverseConfig.builder().httpProxy("file:" + file))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("readable by its group");
    }

    @Test
    void aMissingOrEmptyFileIsNamed() throws Exception {
        assertThatThrownBy(() -> TraverseConfig.builder().httpProxy("file:" + dir.resolve("absent")))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("cannot read the proxy file");
        Path empty = Files.writeString(dir.resolve("empty"), "\n# nothing\n");
        assertThatThrownBy(() -> TraverseConfig.builder().httpProxy("file:" + empty))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("holds no line");
    }

    @Test
    void withoutTheKeyTheJdkPropertiesApplyHttpsFirst() {
        Properties jdk = new Properties();
        jdk.setProperty("http.proxyHost", "plain.example.org");
        jdk.setProperty("https.proxyHost", "tls.example.org");
        jdk.setProperty("https.proxyPort", "8443");
        jdk.setProperty("https.proxyUser", "carol");
        jdk.setProperty("https.proxyPassword", "pw");
        HttpProxy proxy = TraverseConfig.builder()
                .jdkProxyProperties(jdk)
                .build()
                .httpProxy()
                .orElseThrow();
        assertThat(proxy.authority()).isEqualTo("tls.example.org:8443");
        assertThat(proxy.basicAuthorization()).isPresent();
        assertThat(proxy.origin()).contains("https.proxyHost");

        jdk.remove("https.proxyHost");
        HttpProxy plain = TraverseConfig.builder()
                .jdkProxyProperties(jdk)
                .build()
                .httpProxy()
                .orElseThrow();
        assertThat(plain.authority()).isEqualTo("plain.example.org:80");
        assertThat(plain.user()).isEmpty();
    }

    @Test
    void theKeyWinsOverTheJdkPropertiesAndNoneTurnsTheProxyOff() {
        Properties jdk = new Properties();
        jdk.setProperty("http.proxyHost", "plain.example.org");
        assertThat(TraverseConfig.builder()
                        .jdkProxyProperties(jdk)
                        .httpProxy("mine:3128")
                        .build()
                        .httpProxy()
                        .orElseThrow()
                        .host())
                .isEqualTo("mine");
        assertThat(TraverseConfig.builder()
                        .jdkProxyProperties(jdk)
                        .httpProxy("none")
                        .build()
                        .httpProxy())
                .isEmpty();
        assertThat(TraverseConfig.builder().build().httpProxy()).isEmpty();
    }

    @Test
    void nonProxyHostsFollowTheJdkFormAndDefault() {
        HttpProxy byDefault =
                TraverseConfig.builder().httpProxy("p:1").build().httpProxy().orElseThrow();
        assertThat(byDefault.appliesTo("localhost")).isFalse();
        assertThat(byDefault.appliesTo("127.0.0.1")).isFalse();
        assertThat(byDefault.appliesTo("::1")).isFalse();
        assertThat(byDefault.appliesTo("198.18.0.1")).isTrue();

        Properties jdk = new Properties();
        jdk.setProperty("http.nonProxyHosts", "*.corp.example|10.*");
        HttpProxy fromJdk = TraverseConfig.builder()
                .jdkProxyProperties(jdk)
                .httpProxy("p:1")
                .build()
                .httpProxy()
                .orElseThrow();
        assertThat(fromJdk.appliesTo("hub.corp.example")).isFalse();
        assertThat(fromJdk.appliesTo("HUB.CORP.EXAMPLE")).isFalse();
        assertThat(fromJdk.appliesTo("10.1.2.3")).isFalse();
        assertThat(fromJdk.appliesTo("corp.example.org")).isTrue();
        assertThat(fromJdk.appliesTo("127.0.0.1"))
                .as("an explicit list replaces the default")
                .isTrue();

        HttpProxy ours = TraverseConfig.builder()
                .jdkProxyProperties(jdk)
                .httpProxy("p:1")
                .nonProxyHosts("hub1")
                .build()
                .httpProxy()
                .orElseThrow();
        assertThat(ours.appliesTo("hub1")).isFalse();
        assertThat(ours.appliesTo("10.1.2.3")).isTrue();
    }

    @Test
    void theKeysAreReadFromTheirSourcesWithoutAWarning() {
        Properties system = new Properties();
        system.setProperty("traverse.http.proxy", "10.9.9.9:3128");
        Map<String, ConfigSources.Setting> settings =
                ConfigSources.collect(system, Map.of("TRAVERSE_HTTP_NONPROXYHOSTS", "hub.local"), dir, null);
        HttpProxy proxy =
                TraverseConfig.builderFrom(settings).build().httpProxy().orElseThrow();
        assertThat(proxy.authority()).isEqualTo("10.9.9.9:3128");
        assertThat(proxy.origin()).isEqualTo("system property traverse.http.proxy");
        assertThat(proxy.appliesTo("hub.local")).isFalse();
    }
}
