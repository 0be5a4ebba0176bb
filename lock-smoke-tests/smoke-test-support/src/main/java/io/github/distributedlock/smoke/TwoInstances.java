package io.github.distributedlock.smoke;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the module's application on one Redis, {@code <shape>-a} and {@code <shape>-b}, each told its
 * name with {@code --smoke.instance}: where exclusion matters, the smoke tests run two. Used by one test thread.
 */
public final class TwoInstances implements AutoCloseable {

	/** The exit code of a JVM that ran its shutdown hooks after SIGTERM (128 + 15). */
	public static final int SIGTERM_EXIT_CODE = 143;

	private final SmokeApplication a;

	private final SmokeApplication b;

	private TwoInstances(SmokeApplication a, SmokeApplication b) {
		this.a = a;
		this.b = b;
	}

	/**
	 * Starts both at once (see {@link SmokeApplication#start(String, SmokeRedis, String...)}) and waits until both
	 * started.
	 * @param shape the name of the shape, the first part of the instances' names
	 * @param redis the server both connect to
	 * @param arguments further arguments of both
	 * @return the running instances; the caller closes them
	 * @throws AssertionError if one does not start (the other is killed then)
	 */
	public static TwoInstances start(String shape, SmokeRedis redis, String... arguments) {
		return start(shape, (name, named) -> SmokeApplication.start(name, redis, named), arguments);
	}

	/**
	 * Starts both at once without a Redis under {@code spring.data.redis} (see
	 * {@link SmokeApplication#startWithoutSpringDataRedis}) and waits until both started.
	 * @param shape the name of the shape, the first part of the instances' names
	 * @param arguments further arguments of both, such as the Redlock nodes
	 * @return the running instances; the caller closes them
	 * @throws AssertionError if one does not start (the other is killed then)
	 */
	public static TwoInstances startWithoutSpringDataRedis(String shape, String... arguments) {
		return start(shape, SmokeApplication::startWithoutSpringDataRedis, arguments);
	}

	private static TwoInstances start(String shape, BiFunction<String, String[], SmokeApplication> starter,
			String... arguments) {
		SmokeApplication a = starter.apply(shape + "-a", named(shape + "-a", arguments));
		SmokeApplication b = null;
		try {
			b = starter.apply(shape + "-b", named(shape + "-b", arguments));
			a.awaitStarted();
			b.awaitStarted();
			return new TwoInstances(a, b);
		}
		catch (RuntimeException | AssertionError ex) {
			a.close();
			if (b != null) {
				b.close();
			}
			throw ex;
		}
	}

	private static String[] named(String name, String... arguments) {
		List<String> all = new ArrayList<>(List.of(arguments));
		all.add("--smoke.instance=" + name);
		return all.toArray(String[]::new);
	}

	/**
	 * Returns the first instance.
	 * @return {@code <shape>-a}
	 */
	public SmokeApplication a() {
		return this.a;
	}

	/**
	 * Returns the second instance.
	 * @return {@code <shape>-b}
	 */
	public SmokeApplication b() {
		return this.b;
	}

	/**
	 * Waits for both to end by themselves and asserts they exited with 0.
	 * @param atMost how long to wait for each
	 * @throws AssertionError naming the instance otherwise
	 */
	public void awaitCleanExits(Duration atMost) {
		assertThat(this.a.awaitExit(atMost)).as(this.a.name() + "'s exit code").isZero();
		assertThat(this.b.awaitExit(atMost)).as(this.b.name() + "'s exit code").isZero();
	}

	/**
	 * Stops both with SIGTERM, one after the other, and asserts each exited as a JVM does after its shutdown hooks
	 * ({@value #SIGTERM_EXIT_CODE}).
	 * @throws AssertionError naming the instance otherwise, or if one still runs after 60 s
	 */
	public void stop() {
		for (SmokeApplication instance : List.of(this.a, this.b)) {
			if (instance.isAlive()) {
				assertThat(instance.stop(Duration.ofSeconds(60))).as(instance.name() + "'s exit code after SIGTERM")
					.isEqualTo(SIGTERM_EXIT_CODE);
			}
		}
	}

	/**
	 * Asserts that both entered their locked section at least {@code atLeast} times in all, always alone (see
	 * {@link LockedSections}), and that neither logged an ERROR.
	 * @param atLeast the fewest entries that show the section ran
	 * @throws AssertionError otherwise
	 */
	public void assertAlwaysAloneWithoutErrors(int atLeast) {
		LockedSections.assertAlwaysAlone(atLeast, this.a, this.b);
		this.a.assertNoErrors();
		this.b.assertNoErrors();
	}

	/** Kills both where they still run. */
	@Override
	public void close() {
		this.a.close();
		this.b.close();
	}

}
