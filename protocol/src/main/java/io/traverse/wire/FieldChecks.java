package io.traverse.wire;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Validation shared by the message records: a message that exists is encodable, and a decoded
 * one obeys the same rules (the decoder turns these {@link IllegalArgumentException}s into
 * protocol errors).
 */
final class FieldChecks {
    private static final Pattern HUB_NAME = Pattern.compile("[A-Za-z0-9._:\\[\\]-]+");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9.-]+");

    private FieldChecks() {}

    static String text(String field, String value, int maxUtf8Bytes) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        int length = utf8Length(value);
        if (length > maxUtf8Bytes) {
            throw new IllegalArgumentException(
                    field + " of " + length + " bytes exceeds the maximum of " + maxUtf8Bytes);
        }
        return value;
    }

    static String nonEmptyText(String field, String value, int maxUtf8Bytes) {
        text(field, value, maxUtf8Bytes);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(field + " is empty");
        }
        return value;
    }

    static byte[] bytes(String field, byte[] value, int max) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        if (value.length > max) {
            throw new IllegalArgumentException(field + " of " + value.length + " bytes exceeds the maximum of " + max);
        }
        return value;
    }

    static byte[] exactBytes(String field, byte[] value, int length) {
        if (value == null || value.length != length) {
            throw new IllegalArgumentException(field + " must be " + length + " bytes");
        }
        return value;
    }

    static <T> T present(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        return value;
    }

    static <T> List<T> list(String field, List<T> value, int max) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        if (value.size() > max) {
            throw new IllegalArgumentException(field + " has " + value.size() + " entries, more than " + max);
        }
        return List.copyOf(value);
    }

    static int range(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " " + value + " is not in " + min + "-" + max);
        }
        return value;
    }

    static String hubName(String value) {
        nonEmptyText("hub name", value, LinkLimits.MAX_HUB_NAME);
        if (!HUB_NAME.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    "hub name '" + value + "' may hold only letters, digits and . _ : [ ] -");
        }
        return value;
    }

    /** A registered name: hostname-safe (letters, digits, '-', '.'), so it survives URLs. */
    static String name(String value) {
        nonEmptyText("name", value, LinkLimits.MAX_NAME);
        if (!NAME.matcher(value).matches()) {
            throw new IllegalArgumentException("name '" + value + "' may hold only letters, digits, '-' and '.'");
        }
        return value;
    }

    static List<String> linkAddresses(List<String> value) {
        List<String> copy = list("link addresses", value, LinkLimits.MAX_LINK_ADDRESSES);
        for (String address : copy) {
            LinkAddress.parse(address);
        }
        return copy;
    }

    static int utf8Length(CharSequence s) {
        int length = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                length++;
            } else if (c < 0x800) {
                length += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                length += 4;
                i++;
            } else {
                length += 3;
            }
        }
        return length;
    }
}
