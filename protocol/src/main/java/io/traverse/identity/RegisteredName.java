package io.traverse.identity;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A name a node registers for itself at the hub network, e.g. {@code db-main} or
 * {@code db.site-a}: hostname-safe so that it survives URLs ({@code jdbc:postgresql://db-main:5432/db}).
 * Labels of 1–63 letters, digits or {@code -} (not at either end) joined by dots, at most 253
 * characters, compared without case. Not allowed: an IP literal (it would never be looked up) and
 * the {@code tv1} identity marker (it would be read as a node address).
 */
public final class RegisteredName {
    public static final int MAX_LENGTH = 253;
    private static final Pattern FORM =
            Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
    private static final Pattern DOTTED_NUMBERS = Pattern.compile("[0-9.]+");

    private RegisteredName() {}

    /**
     * The canonical (lower-case) form of a name.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String normalize(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a name can't be empty");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "name '" + name.substring(0, 40) + "…' is longer than " + MAX_LENGTH + " characters");
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (!FORM.matcher(lower).matches()) {
            throw new IllegalArgumentException(
                    "name '" + name + "' is not hostname-safe: use letters, digits, '-' and '.'"
                            + " (labels of 1-63 characters, no '-' at either end)");
        }
        if (DOTTED_NUMBERS.matcher(lower).matches()) {
            throw new IllegalArgumentException("name '" + name + "' looks like an IP address");
        }
        if (NodeIdentity.looksLikeIdentity(lower)) {
            throw new IllegalArgumentException("name '" + name + "' starts like a node address (tv1…)");
        }
        return lower;
    }

    /** True if {@link #normalize} accepts the text; for deciding whether a host string may be a name. */
    public static boolean isValid(String text) {
        try {
            normalize(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
