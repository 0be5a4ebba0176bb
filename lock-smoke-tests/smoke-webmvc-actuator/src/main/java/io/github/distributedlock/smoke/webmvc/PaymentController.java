package io.github.distributedlock.smoke.webmvc;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders/{id}/pay?millis=...}: pays an order, the payment taking that long.
 */
@RestController
class PaymentController {

	private final PaymentService payments;

	PaymentController(PaymentService payments) {
		this.payments = payments;
	}

	@PostMapping("/orders/{id}/pay")
	String pay(@PathVariable String id, @RequestParam(defaultValue = "200") long millis) throws InterruptedException {
		return this.payments.pay(id, millis);
	}

}
