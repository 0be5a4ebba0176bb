package io.github.distributedlock.docs;

import io.github.distributedlock.core.LockLostEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.event.EventListener;

/**
 * The documentation's snippets on observability, compiled.
 */
@SuppressWarnings("unused")
class ObservabilitySnippets {

	private static final Logger log = LoggerFactory.getLogger(ObservabilitySnippets.class);

	// tag::lost-event[]
	@EventListener
	void onLost(LockLostEvent event) {
		log.error("Lost {}: {}", event.getKey(), event.getReason());   // stop the work, alert...
	}
	// end::lost-event[]

}
