// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/failure.h"

#include "cli/args.h"
#include "cli/cli_main.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <new>

namespace tpacf::cli {

std::string oneLine(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    return text;
}

RankFailure describeFailure(std::exception_ptr error, std::string_view command) {
    const std::string prefix = "tpacf: ";
    const auto failure = [](int code, std::string line) {
        return RankFailure{RankFailure::Kind::Error, code, std::move(line), 0};
    };
    try {
        std::rethrow_exception(error);
    } catch (const RunEnded& ended) {
        return ended.failure();
    } catch (const UsageError& usage) {
        return failure(kExitUsage, prefix + std::string(command) + ": " + oneLine(usage.what()) +
                                       " (see 'tpacf " + std::string(command) + " --help')");
    } catch (const Cancelled&) {
        return RankFailure{RankFailure::Kind::Cancelled, kExitCancelled, prefix + "cancelled", 0};
    } catch (const InputError& input) {
        return failure(kExitUsage, prefix + oneLine(input.what()));
    } catch (const ConfigError& config) {
        return failure(kExitUsage, prefix + oneLine(config.what()));
    } catch (const BackendUnavailable& unavailable) {
        return failure(kExitUsage, prefix + oneLine(unavailable.what()));
    } catch (const tpacf::cuda::CudaError& gpu) {
        // A GPU that failed mid-run is not a bug of tpacf, nor bad input: say what CUDA said.
        return failure(kExitInternal, prefix + "GPU failure: " + oneLine(gpu.what()));
    } catch (const std::bad_alloc&) {
        return failure(kExitInternal, prefix + "out of memory");
    } catch (const std::exception& other) {
        return failure(kExitInternal, prefix + "internal error: " + oneLine(other.what()));
    } catch (...) {
        return failure(kExitInternal, prefix + "internal error: an unknown exception");
    }
}

} // namespace tpacf::cli
