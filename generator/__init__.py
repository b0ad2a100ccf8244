"""midint code generator: parameter space, variant names, rendering of templates into generated/."""
