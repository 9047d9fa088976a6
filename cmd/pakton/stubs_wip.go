package main

import (
	"context"
	"errors"
)

var errWIP = errors.New("not built yet")

func runDemo(ctx context.Context, args []string) error   { return errWIP }
func runIngest(ctx context.Context, args []string) error { return errWIP }
func runSearch(ctx context.Context, args []string) error { return errWIP }
func runDocs(ctx context.Context, args []string) error   { return errWIP }
func runTree(ctx context.Context, args []string) error   { return errWIP }
