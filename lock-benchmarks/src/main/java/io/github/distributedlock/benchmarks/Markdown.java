package io.github.distributedlock.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import org.jspecify.annotations.Nullable;

/**
 * The cells and rows of the runners' Markdown reports, formatted alike in every report (RESULTS.md quotes
 * them): numbers of 100 and more without decimals and with thousands separators, smaller ones with two
 * decimals, and "-" for what was not measured. Stateless.
 */
final class Markdown {

	private Markdown() {
	}

	/**
	 * One table row.
	 * @param cells the cells, already formatted
	 * @return {@code | a | b |} and a line break
	 */
	static String row(String... cells) {
		return "| " + String.join(" | ", cells) + " |\n";
	}

	/**
	 * A number.
	 * @param value the number, {@code NaN} when not measured
	 * @return {@code 1,234}, {@code 12.34} or {@code -}
	 */
	static String fmt(double value) {
		if (Double.isNaN(value)) {
			return "-";
		}
		return (value >= 100) ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.2f", value);
	}

	/**
	 * A ratio with two decimals.
	 * @param value the numerator, {@code NaN} when not measured
	 * @param base the denominator, {@code NaN} when not measured
	 * @return {@code value / base} or {@code -} (also when {@code base} is 0)
	 */
	static String ratio(double value, double base) {
		return (Double.isNaN(value) || Double.isNaN(base) || base == 0) ? "-"
				: String.format(Locale.ROOT, "%.2f", value / base);
	}

	/**
	 * The slowest instance's acquisitions over the fastest's, with two decimals.
	 * @param slowest the slowest instance's acquisitions, {@code null} when not counted
	 * @param fastest the fastest instance's acquisitions, {@code null} when not counted
	 * @return the ratio or {@code -} (also when the fastest made none)
	 */
	static String fairness(@Nullable Long slowest, @Nullable Long fastest) {
		return (slowest == null || fastest == null || fastest == 0) ? "-"
				: String.format(Locale.ROOT, "%.2f", (double) slowest / fastest);
	}

	/**
	 * A count.
	 * @param value the count, {@code null} when not counted
	 * @return the count or {@code -}
	 */
	static String count(@Nullable Long value) {
		return (value != null) ? Long.toString(value) : "-";
	}

	/**
	 * Whether a target was met.
	 * @param met whether it was
	 * @return {@code yes} or {@code **no**}
	 */
	static String met(boolean met) {
		return met ? "yes" : "**no**";
	}

	/**
	 * The machine a report was produced on.
	 * @return {@code 2 cores, OpenJDK 64-Bit Server VM 17.0.x}
	 */
	static String machine() {
		return Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("java.vm.name") + " "
				+ System.getProperty("java.version");
	}

	/**
	 * {@code median [min-max]} of one value of each sample, each with the format: a table cell over rounds.
	 * @param samples at least one sample
	 * @param value the value of a sample
	 * @param format a {@link String#format} pattern for one value
	 * @return the cell
	 */
	static <T> String spread(List<T> samples, ToDoubleFunction<T> value, String format) {
		return spread(samples.stream().mapToDouble(value).toArray(), format);
	}

	/**
	 * {@code median [min-max]} of the values, each with the format.
	 * @param values at least one value
	 * @param format a {@link String#format} pattern for one value
	 * @return the cell
	 */
	static String spread(double[] values, String format) {
		return Spread.of(values).cell(format);
	}

}
