// Carrier of the precompiled <torch/torch.h> that every torch target reuses.
#include <torch/torch.h>
