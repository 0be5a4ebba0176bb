package io.github.distributedlock.sample;

import io.github.distributedlock.annotation.DistributedLock;

import org.springframework.stereotype.Service;

/**
 * Calls partners' APIs, at most {@value #MAX_CALLS_AT_ONCE} calls at once per partner across every instance: a
 * semaphore ({@code permits = 3}) on the partner's name. A caller that finds all permits taken waits for one in
 * turn (first come, first served across instances), without polling.
 */
@Service
public class PartnerGateway {

	/** What the partner's contract allows: calls in flight at once, from all instances together. */
	public static final int MAX_CALLS_AT_ONCE = 3;

	/**
	 * Asks {@code partner} for a quote under its semaphore {@code partner-api:<name>}: one of its 3 permits is held
	 * for the call, each with its own lease (renewed while the call lasts).
	 * @return the partner's answer
	 */
	@DistributedLock(name = "partner-api", key = "#partner.name()", permits = MAX_CALLS_AT_ONCE, acquireTimeout = "30s")
	public String quote(Partner partner, String product) {
		return partner.quote(product);
	}

	/**
	 * The same call without a limit: the demo's control.
	 * @return the partner's answer
	 */
	public String quoteWithoutLimit(Partner partner, String product) {
		return partner.quote(product);
	}

}
