package io.github.distributedlock.sample;

/**
 * A partner's API that the application calls, such as a price or shipping quote service: it accepts only a few
 * calls at once per client, all instances together.
 */
public interface Partner {

	/**
	 * Names the partner: the key of its semaphore.
	 * @return the partner's name
	 */
	String name();

	/**
	 * Asks the partner for a quote, waiting for its answer.
	 * @param product what to quote
	 * @return the partner's answer
	 */
	String quote(String product);

}
