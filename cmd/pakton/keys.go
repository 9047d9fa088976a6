package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/server"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate"
)

const keysUsage = `keys create --collection NAME [--name LABEL]   create a key for one collection (printed once)
       pakton keys create --admin [--name LABEL]             create an admin key (all collections)
       pakton keys list [--json]                             list keys (never their secrets)
       pakton keys revoke ID                                 delete a key`

func runKeys(ctx context.Context, args []string) error {
	if len(args) == 0 || (args[0] != "create" && args[0] != "list" && args[0] != "revoke") {
		fmt.Fprintf(stderr, "Usage: pakton %s\n", keysUsage)
		return fmt.Errorf("want a subcommand: create, list or revoke")
	}
	sub, args := args[0], args[1:]
	fs, g := newFlags("keys "+sub, keysUsage)
	name := fs.String("name", "", "label for the key (create)")
	admin := fs.Bool("admin", false, "create an admin key: every collection, and creating, listing and deleting collections")
	asJSON := fs.Bool("json", false, "print JSON (list)")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	collectionSet := false
	fs.Visit(func(f *flag.Flag) { collectionSet = collectionSet || f.Name == "collection" })
	// Keys live in the store: creating one may create the store (and says
	// so); listing or revoking never does, so a mistyped --store is an error.
	var keys *auth.Keyring
	if sub == "create" || weaviate.IsURL(g.store) {
		// A store on a cluster keeps its keys in the cluster, shared by
		// every server that uses it (openKeys).
		st, err := g.openOrCreate(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		if keys, err = openKeys(ctx, st); err != nil {
			return err
		}
	} else if ok, err := store.Exists(g.store); err != nil {
		return err
	} else if !ok {
		return noStore(g.store)
	} else if keys, err = auth.Open(ctx, g.store); err != nil {
		return err
	}
	switch sub {
	case "create":
		if len(rest) > 0 {
			return fmt.Errorf("keys create: unexpected argument %q", rest[0])
		}
		if *admin == collectionSet {
			return fmt.Errorf("keys create: give either --collection NAME or --admin")
		}
		secret, k, err := keys.Create(ctx, g.collection, *name, *admin)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "created key %s (%s); it is shown only now:\n", k.ID, k.Scope())
		fmt.Fprintln(stdout, secret)
		fmt.Fprintf(stderr, "Open the web app with it: http://%s/#key=<the key> (pakton serve's --addr)\n", server.DefaultAddr)
		return nil
	case "list":
		list, err := keys.List(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			out := []map[string]any{}
			for _, k := range list {
				out = append(out, map[string]any{"id": k.ID, "name": k.Name, "collection": k.Collection, "admin": k.Admin, "created": k.Created})
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no keys (pakton serve creates an admin key on its first start)")
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSCOPE\tNAME\tCREATED")
		for _, k := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.ID, k.Scope(), k.Name, k.Created.Format("2006-01-02 15:04"))
		}
		return tw.Flush()
	default:
		if len(rest) != 1 {
			return fmt.Errorf("keys revoke: name one key id (see \"pakton keys list\")")
		}
		if err := keys.Revoke(ctx, rest[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked key %s\n", rest[0])
		return nil
	}
}

// openKeys opens a store's API keys: in its directory, or, for a store on
// a cluster, in the cluster, so every server using it accepts the same keys.
func openKeys(ctx context.Context, st *store.Store) (*auth.Keyring, error) {
	if sr := st.Shared(); sr != nil {
		return auth.OpenRecords(ctx, sr)
	}
	return auth.Open(ctx, st.Dir())
}
