package driver

// NextTenant chooses the tenant a claim serves next: among tenants, those
// not exhausted (no claimable work left) and, when maxPer > 0, holding fewer
// than maxPer live leases, the one with the fewest live leases (inflight),
// then the one served longest ago (the smallest served attempt id), then the
// first in tenants. This round robin across claims and across workers keeps
// one tenant's large batch from starving a small one. It reports false when
// no tenant qualifies. Missing map entries count as zero.
func NextTenant(tenants []string, inflight map[string]int, served map[string]int64, exhausted map[string]bool, maxPer int) (string, bool) {
	best, found := "", false
	for _, t := range tenants {
		if exhausted[t] || (maxPer > 0 && inflight[t] >= maxPer) {
			continue
		}
		if !found || inflight[t] < inflight[best] || (inflight[t] == inflight[best] && served[t] < served[best]) {
			best, found = t, true
		}
	}
	return best, found
}
