package jvm

import "errors"

func isErr(err, target error) bool { return errors.Is(err, target) }
