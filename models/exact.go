package models

func init() {
	Register(Kind{
		Name: "exact",
		Doc: "the true q of pi_e, from the domain's exact dynamic program, recorded as the domain collects " +
			"(q_hat_t the expected discounted return from step t on given the hidden state and action, v_hat_t its mean under pi_e): " +
			"a reference line, not an estimator; on logged data, the data's own q_hat and v_hat columns",
		Source: "SPEC 1d",
		Needs:  ExactQ,
	})
}
