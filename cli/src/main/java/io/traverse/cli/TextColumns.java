package io.traverse.cli;

import java.util.ArrayList;
import java.util.List;

/** Left-aligned columns as wide as their widest cell, for tables printed to a terminal. */
public final class TextColumns {
    private final List<String[]> rows = new ArrayList<>();

    public TextColumns(String... header) {
        rows.add(header);
    }

    public void add(Object... cells) {
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = cells[i] == null ? "-" : cells[i].toString();
        }
        rows.add(row);
    }

    public int size() {
        return rows.size() - 1;
    }

    /** The table, each line indented by {@code indent}, the last column not padded. */
    public String render(String indent) {
        int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] width = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int i = 0; i < row.length; i++) {
                line.append(row[i]);
                if (i < row.length - 1) {
                    line.append(" ".repeat(width[i] - row[i].length() + 2));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
