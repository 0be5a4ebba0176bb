package io.github.distributedlock.sample;

import java.io.PrintStream;
import java.util.List;
import java.util.function.Function;

/**
 * Prints the demo's rows as a Markdown-style table, each column padded to its widest cell (the README quotes
 * the layout). Stateless.
 */
final class DemoTable {

	private DemoTable() {
	}

	/**
	 * Prints the header, the rule, the rows and an empty line.
	 * @param rows the rows, in order
	 * @param out where to print
	 */
	static void print(List<Demo.Row> rows, PrintStream out) {
		List<Function<Demo.Row, String>> columns = List.of(Demo.Row::scenario, Demo.Row::setup, Demo.Row::outcome,
				(row) -> row.millis() + " ms");
		String[] headers = { "Scenario", "Setup", "Outcome", "Time" };
		int[] widths = new int[headers.length];
		for (int c = 0; c < headers.length; c++) {
			widths[c] = headers[c].length();
			for (Demo.Row row : rows) {
				widths[c] = Math.max(widths[c], columns.get(c).apply(row).length());
			}
		}
		StringBuilder line = new StringBuilder("|");
		StringBuilder rule = new StringBuilder("|");
		for (int c = 0; c < headers.length; c++) {
			line.append(' ').append(pad(headers[c], widths[c])).append(" |");
			rule.append('-').append("-".repeat(widths[c])).append("-|");
		}
		out.println(line);
		out.println(rule);
		for (Demo.Row row : rows) {
			StringBuilder cells = new StringBuilder("|");
			for (int c = 0; c < headers.length; c++) {
				cells.append(' ').append(pad(columns.get(c).apply(row), widths[c])).append(" |");
			}
			out.println(cells);
		}
		out.println();
	}

	private static String pad(String text, int width) {
		return text + " ".repeat(width - text.length());
	}

}
