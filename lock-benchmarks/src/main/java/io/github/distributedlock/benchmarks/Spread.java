package io.github.distributedlock.benchmarks;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * The median and the range of values measured once per round, such as a ratio ours / peer taken in each round of
 * alternating rounds (both sides measured in the same minutes, so a slow stretch of the machine falls on both).
 * An immutable value.
 * @param median the median of the values ({@code NaN} when there are none)
 * @param min the lowest
 * @param max the highest
 * @param count how many values
 */
record Spread(double median, double min, double max, int count) {

	/** No value: every figure {@code NaN}. */
	static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN, 0);

	/**
	 * The spread of values; {@code NaN}s are left out.
	 * @param values the values, one per round
	 * @return their spread, {@link #NONE} when no value is a number
	 */
	static Spread of(double... values) {
		double[] sorted = Arrays.stream(values).filter((v) -> !Double.isNaN(v)).sorted().toArray();
		int n = sorted.length;
		if (n == 0) {
			return NONE;
		}
		double median = (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
		return new Spread(median, sorted[0], sorted[n - 1], n);
	}

	/**
	 * The spread of values.
	 * @param values the values, one per round
	 * @return their spread
	 */
	static Spread of(Collection<Double> values) {
		return of(values.stream().mapToDouble(Double::doubleValue).toArray());
	}

	/**
	 * The spread of the ratios of values measured in the same rounds.
	 * @param values one value per round, above the line
	 * @param bases one value per round, below the line, in the same order
	 * @return the spread of {@code values[r] / bases[r]} over the rounds both have
	 */
	static Spread ratios(List<Double> values, List<Double> bases) {
		double[] ratios = new double[Math.min(values.size(), bases.size())];
		for (int round = 0; round < ratios.length; round++) {
			ratios[round] = values.get(round) / bases.get(round);
		}
		return of(ratios);
	}

	/**
	 * Whether no value was measured.
	 * @return {@code true} when there is no value
	 */
	boolean isEmpty() {
		return this.count == 0;
	}

	/**
	 * A table cell.
	 * @param format a {@link String#format} pattern for one value, such as {@code %.2f}
	 * @return {@code median [min-max]}, only the median for a single value, {@code -} for none
	 */
	String cell(String format) {
		if (isEmpty()) {
			return "-";
		}
		String median = String.format(Locale.ROOT, format, this.median);
		return (this.count == 1) ? median
				: median + " [" + String.format(Locale.ROOT, format, this.min) + "-"
						+ String.format(Locale.ROOT, format, this.max) + "]";
	}

}
