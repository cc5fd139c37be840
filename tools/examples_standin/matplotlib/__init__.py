"""A do-nothing matplotlib for tools/run_examples.py: time_sequence_prediction plots its
predictions after training, and neither the reference Python nor ours has matplotlib. Plotting
is not what is compared, so every call is accepted and draws nothing."""


def use(backend, force=True):
    pass
