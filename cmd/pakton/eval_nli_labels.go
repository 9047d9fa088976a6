package main

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/pakton/pakton/internal/eval/contractnli"
)

// runEvalNLILabels runs "pakton eval nli-labels": ContractNLI's NDAs as a
// review benchmark for a playbook of one's own.
func runEvalNLILabels(ctx context.Context, args []string) error {
	fs := newCommandFlags("eval nli-labels", "--out DIR [--data FILE] [--map FILE]",
		"Writes ContractNLI's NDAs and a review labels file for a playbook whose provisions the map\n"+
			"labels with ContractNLI hypotheses (entailed: present, with the evidence as spans;\n"+
			"contradicted or not mentioned: absent). Then:\n"+
			"  pakton eval review --labels DIR/labels.json --corpus DIR/corpus --playbook examples/playbooks/nda.yaml")
	data := fs.String("data", "../shared/data/contractnli/dev.json", "ContractNLI file")
	mapPath := fs.String("map", "examples/playbooks/nda-contractnli.json", "which hypotheses label each provision (JSON: {\"provisions\": {name: [hypothesis keys]}})")
	out := fs.String("out", "", "directory to write corpus/ (the NDAs' texts) and labels.json into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return fmt.Errorf("eval nli-labels: --out is required")
	}
	rep, err := contractnli.WriteReviewLabels(ctx, *data, *mapPath, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "wrote %d NDAs to %s and their labels to %s\n", rep.Documents, rep.Corpus, rep.Labels)
	names := make([]string, 0, len(rep.Present))
	for n := range rep.Present {
		names = append(names, n)
	}
	for n := range rep.Excluded {
		if _, ok := rep.Present[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stdout, "  %-40s present in %d, excluded by a clause in %d\n", n, rep.Present[n], rep.Excluded[n])
	}
	return nil
}
