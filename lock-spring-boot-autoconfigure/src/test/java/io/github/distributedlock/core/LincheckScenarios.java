package io.github.distributedlock.core;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import kotlin.Unit;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.CustomScenarioDSLKt;

/**
 * Hand-written Lincheck scenarios for the model checks of the lock core, from Java: Lincheck's scenario DSL is made
 * for Kotlin. A scenario is an initial part run on one thread (it sets up a state, such as a holder and two
 * waiters queued in a known order), threads run in parallel (whose interleavings the model checker explores), and a
 * post part that looks at the outcome. Random scenarios rarely reach such states, so each model check adds a few.
 */
public final class LincheckScenarios {

	private final Class<?> test;

	private final List<Actor> initial = new ArrayList<>();

	private final List<List<Actor>> parallel = new ArrayList<>();

	private final List<Actor> post = new ArrayList<>();

	private LincheckScenarios(Class<?> test) {
		this.test = test;
	}

	/**
	 * Starts a scenario of a Lincheck test class.
	 * @param test the class whose {@code @Operation} methods the actors call
	 * @return the builder
	 */
	public static LincheckScenarios of(Class<?> test) {
		return new LincheckScenarios(test);
	}

	/**
	 * Adds actors to the initial part, run on one thread before the parallel part.
	 * @param actors each an operation name followed by its arguments, such as {@code call("take", 0)}
	 * @return this builder
	 */
	public LincheckScenarios initial(Object[]... actors) {
		this.initial.addAll(actors(actors));
		return this;
	}

	/**
	 * Adds a thread to the parallel part.
	 * @param actors each an operation name followed by its arguments, run in this order on that thread
	 * @return this builder
	 */
	public LincheckScenarios thread(Object[]... actors) {
		this.parallel.add(actors(actors));
		return this;
	}

	/**
	 * Adds actors to the post part, run on one thread after the parallel part.
	 * @param actors each an operation name followed by its arguments
	 * @return this builder
	 */
	public LincheckScenarios post(Object[]... actors) {
		this.post.addAll(actors(actors));
		return this;
	}

	/**
	 * Builds the scenario.
	 * @return the scenario, for {@code Options.addCustomScenario}
	 */
	public ExecutionScenario build() {
		return CustomScenarioDSLKt.scenario((builder) -> {
			builder.initial((thread) -> {
				thread.addAll(this.initial);
				return Unit.INSTANCE;
			});
			builder.parallel((threads) -> {
				for (List<Actor> actors : this.parallel) {
					threads.thread((thread) -> {
						thread.addAll(actors);
						return Unit.INSTANCE;
					});
				}
				return Unit.INSTANCE;
			});
			builder.post((thread) -> {
				thread.addAll(this.post);
				return Unit.INSTANCE;
			});
			return Unit.INSTANCE;
		});
	}

	/**
	 * One actor: an operation's name and its arguments.
	 * @param operation the name of an {@code @Operation} method
	 * @param arguments its arguments
	 * @return the actor, for {@link #initial}, {@link #thread} or {@link #post}
	 */
	public static Object[] call(String operation, Object... arguments) {
		Object[] actor = new Object[arguments.length + 1];
		actor[0] = operation;
		System.arraycopy(arguments, 0, actor, 1, arguments.length);
		return actor;
	}

	private List<Actor> actors(Object[][] calls) {
		List<Actor> actors = new ArrayList<>();
		for (Object[] call : calls) {
			actors.add(new Actor(method((String) call[0]), Arrays.asList(Arrays.copyOfRange(call, 1, call.length)),
					false, false, false, false, false));
		}
		return actors;
	}

	private Method method(String name) {
		for (Method method : this.test.getMethods()) {
			if (method.getName().equals(name)) {
				return method;
			}
		}
		throw new IllegalArgumentException("No operation " + name + " in " + this.test.getName());
	}

}
