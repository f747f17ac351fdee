package io.traverse.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RegisteredNameTest {
    @Test
    void hostnameSafeNamesAreAcceptedAndFoldedToLowerCase() {
        assertThat(RegisteredName.normalize("DB-Main")).isEqualTo("db-main");
        assertThat(RegisteredName.normalize("db.site-a")).isEqualTo("db.site-a");
        assertThat(RegisteredName.normalize("x")).isEqualTo("x");
        assertThat(RegisteredName.normalize("a".repeat(63) + ".b")).hasSize(65);
    }

    @Test
    void everythingElseIsRefusedWithTheReason() {
        assertThatThrownBy(() -> RegisteredName.normalize("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> RegisteredName.normalize("db_main")).hasMessageContaining("hostname-safe");
        assertThatThrownBy(() -> RegisteredName.normalize("-db")).hasMessageContaining("hostname-safe");
        assertThatThrownBy(() -> RegisteredName.normalize("db..main")).hasMessageContaining("hostname-safe");
        assertThatThrownBy(() -> RegisteredName.normalize("db main")).hasMessageContaining("hostname-safe");
        assertThatThrownBy(() -> RegisteredName.normalize("a".repeat(64))).hasMessageContaining("hostname-safe");
        assertThatThrownBy(() -> RegisteredName.normalize("a.".repeat(127) + "a"))
                .hasMessageContaining("longer than 253");
        assertThatThrownBy(() -> RegisteredName.normalize("10.0.0.1")).hasMessageContaining("IP address");
        assertThatThrownBy(() -> RegisteredName.normalize("tv1-abc")).hasMessageContaining("node address");
        assertThat(RegisteredName.isValid("tv10")).isTrue(); // only the exact marker is reserved
    }
}
