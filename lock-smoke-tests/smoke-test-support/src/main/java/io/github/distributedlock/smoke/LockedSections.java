package io.github.distributedlock.smoke;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exclusion check of the smoke tests, read from the applications' logs. Each smoke application counts the
 * callers inside its locked section in Redis ({@code INCR} on entry, {@code DECR} on exit, one counter shared by
 * every instance) and logs {@code locked section entered by <instance>: inside=<count>}: a count above 1 means two
 * callers, of one instance or of two, ran the section at once. Stateless.
 */
public final class LockedSections {

	private static final Pattern ENTERED = Pattern.compile("locked section entered by (\\S+): inside=(\\d+)");

	private LockedSections() {
	}

	/**
	 * Returns the counts the applications logged on entering their section.
	 * @param applications the instances
	 * @return every count, in log order per instance
	 */
	public static List<Integer> insideCounts(SmokeApplication... applications) {
		List<Integer> counts = new ArrayList<>();
		for (SmokeApplication application : applications) {
			for (String line : application.lines()) {
				Matcher matcher = ENTERED.matcher(line);
				if (matcher.find()) {
					counts.add(Integer.parseInt(matcher.group(2)));
				}
			}
		}
		return counts;
	}

	/**
	 * Asserts that the instances entered their section at least {@code atLeast} times in all, always alone.
	 * @param atLeast the fewest entries that show the section ran (and was contended)
	 * @param applications the instances
	 * @throws AssertionError with the counts if one was above 1 or there were too few
	 */
	public static void assertAlwaysAlone(int atLeast, SmokeApplication... applications) {
		List<Integer> counts = insideCounts(applications);
		assertThat(counts).as("callers inside the locked section as each entered it").hasSizeGreaterThanOrEqualTo(atLeast);
		assertThat(counts).as("callers inside the locked section as each entered it (never two at once)")
			.containsOnly(1);
	}

}
