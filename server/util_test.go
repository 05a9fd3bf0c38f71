package server_test

import "errors"

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }
