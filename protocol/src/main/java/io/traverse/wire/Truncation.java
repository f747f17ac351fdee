package io.traverse.wire;

/** Cuts free text to a byte budget so that a long reason never makes a message invalid. */
final class Truncation {
    private static final String ELLIPSIS = "...";

    private Truncation() {}

    static String toUtf8Bytes(String text, int maxBytes) {
        if (text == null) {
            return "";
        }
        if (FieldChecks.utf8Length(text) <= maxBytes) {
            return text;
        }
        int budget = maxBytes - ELLIPSIS.length();
        int used = 0;
        int end = 0;
        while (end < text.length()) {
            int codePoint = text.codePointAt(end);
            int bytes = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (used + bytes > budget) {
                break;
            }
            used += bytes;
            end += Character.charCount(codePoint);
        }
        return text.substring(0, end) + ELLIPSIS;
    }
}
