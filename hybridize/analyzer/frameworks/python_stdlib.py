"""Python standard-library knowledge: which callables are side effects, and which are pure.

Names are fully qualified as written after import resolution: ``builtins.print``,
``os.path.join``, ``logging.info``, ``time.time``. A handful of ubiquitous third-party
helpers (``absl.logging``, ``tqdm``, ``requests``, ``matplotlib.pyplot``, ``wandb``, ...) are
included because deep-learning code calls them from training steps.

Effect categories (``ApiInfo.effect``): "print", "io", "logging", "random", "clock", "input", "plot",
"trace_time" (changes interpreter-wide state such as ``atexit`` hooks). Decisions:

* File-system *writes* (``os.makedirs``, ``os.remove``, ``shutil.*``, ``open``, file
  methods, ``pickle.dump``, ``np.save``...) are "io".
* File-system *queries* (``os.path.exists``, ``isdir``, ``isfile``, ``getsize``,
  ``os.listdir``, ``glob.glob``, ``os.stat``) are also "io": they change nothing, but in a
  graph their answer is frozen at trace time, like the clock. A wrong "unsafe" only loses a
  speed-up; a wrong "safe" breaks a program.
* Pure path-string functions (``os.path.join``, ``basename``, ``dirname``, ``splitext``,
  ``abspath``, ``normpath`` ...) are pure (no effect), as is reading the environment
  (``os.getenv``) and the working directory (``os.getcwd``).
* ``open`` is "io" whatever the mode: opening for writing truncates, and the mode is often
  not a literal. Reading a file back (``read``) is "io" too (it advances the file position).
* ``time.sleep`` is "clock". ``warnings.warn`` is "logging".
* Container mutations (``list.append``...) are not effects of the *callable*: they mutate a
  receiver or argument (``mutates_receiver``, ``mutated_args``), which matters only when the
  analysed function did not create that object.
"""

from __future__ import annotations

import builtins

from .api_info import (
    CLOCK,
    IO,
    IO_NONE,
    LOGGING,
    NONE,
    OBJECT,
    PRINT,
    PYTHON,
    RANDOM,
    TRACE_TIME,
    UNKNOWN,
    Behaviour,
)

PURE = PYTHON
INPUT = Behaviour("python", effect="input")
FILE = Behaviour("file", effect="io", note="opens a file")
LOGGER = Behaviour("logger")


def _each(names: str, behaviour: Behaviour, prefix: str = "") -> dict[str, Behaviour]:
    return {prefix + name: behaviour for name in names.split()}


def _pure_builtins() -> dict[str, Behaviour]:
    """Every builtin class (int, list, ValueError ...) plus the pure builtin functions."""
    table: dict[str, Behaviour] = {}
    for name in dir(builtins):
        if name.startswith("_"):
            continue
        value = getattr(builtins, name)
        if isinstance(value, type):
            table[f"builtins.{name}"] = PURE
    table.update(
        _each(
            "abs all any ascii bin callable chr divmod format hasattr hash hex id "
            "isinstance issubclass len max min oct ord pow repr round sum dir globals locals "
            "vars aiter anext",
            PURE,
            "builtins.",
        )
    )
    # getattr(obj, name) may return anything, a tensor or a function: the value is unknown.
    table["builtins.getattr"] = Behaviour("unknown")
    return table


#: name -> behaviour
STDLIB: dict[str, Behaviour] = {
    **_pure_builtins(),
    # builtins with a precise answer (classes first: these override the blanket "pure")
    "builtins.list": Behaviour("list"),
    "builtins.dict": Behaviour("dict"),
    "builtins.set": Behaviour("set"),
    "builtins.iter": Behaviour("iterator"),
    "builtins.map": Behaviour("iterator", callback_args=(0,)),
    "builtins.filter": Behaviour("iterator", callback_args=(0,)),
    "builtins.sorted": Behaviour("list", callback_args=("key",)),
    "builtins.max": PURE.with_(callback_args=("key",)),
    "builtins.min": PURE.with_(callback_args=("key",)),
    "builtins.enumerate": Behaviour("iterator"),
    "builtins.zip": Behaviour("iterator"),
    "builtins.reversed": Behaviour("iterator"),
    "builtins.range": PURE,
    "builtins.next": Behaviour("unknown", mutated_args=(0,), note="advances the iterator"),
    "builtins.setattr": Behaviour("none", mutated_args=(0,)),
    "builtins.delattr": Behaviour("none", mutated_args=(0,)),
    "builtins.print": PRINT,
    "builtins.input": INPUT,
    "builtins.breakpoint": INPUT.with_(returns="none", note="stops in the debugger"),
    "builtins.help": PRINT,
    "builtins.open": FILE,
    "io.open": FILE,
    "io.StringIO": OBJECT,
    "io.BytesIO": OBJECT,
    "codecs.open": FILE,
    # --- print ------------------------------------------------------------------------------
    "pprint.pprint": PRINT,
    "pprint.pp": PRINT,
    "pprint.pformat": PURE,
    "sys.stdout.write": PRINT,
    "sys.stdout.writelines": PRINT,
    "sys.stdout.flush": PRINT,
    "sys.stderr.write": PRINT,
    "sys.stderr.writelines": PRINT,
    "sys.stderr.flush": PRINT,
    "sys.__stdout__.write": PRINT,
    "traceback.print_exc": PRINT,
    "traceback.print_exception": PRINT,
    "traceback.print_stack": PRINT,
    "traceback.print_tb": PRINT,
    "traceback.format_exc": PURE,
    "tqdm.tqdm": Behaviour("iterator", effect="print", note="draws a progress bar"),
    "tqdm.trange": Behaviour("iterator", effect="print", note="draws a progress bar"),
    "tqdm.auto.tqdm": Behaviour("iterator", effect="print", note="draws a progress bar"),
    "tqdm.auto.trange": Behaviour("iterator", effect="print", note="draws a progress bar"),
    "tqdm.notebook.tqdm": Behaviour("iterator", effect="print", note="draws a progress bar"),
    "tqdm.write": PRINT,
    "tqdm.tqdm.write": PRINT,
    # --- input ------------------------------------------------------------------------------
    "sys.stdin.read": INPUT,
    "sys.stdin.readline": INPUT,
    "sys.stdin.readlines": INPUT,
    "getpass.getpass": INPUT,
    # --- io: os -----------------------------------------------------------------------------
    **_each(
        "makedirs mkdir remove unlink rename renames replace rmdir removedirs system popen "
        "chdir chmod chown lchown symlink link utime truncate write close open putenv "
        "unsetenv kill startfile listdir scandir walk stat lstat access fwalk readlink "
        "execv execve execvp spawnl spawnv fork",
        IO,
        "os.",
    ),
    **_each(
        "getcwd getenv getpid getppid cpu_count fspath fsencode fsdecode get_terminal_size "
        "getlogin",
        PURE,
        "os.",
    ),
    "os.urandom": RANDOM,
    "os.environ.get": PURE,
    "os.environ.__getitem__": PURE,
    "os.environ.setdefault": Behaviour("unknown", effect="trace_time"),
    "os.environ.update": TRACE_TIME,
    "os.environ.pop": Behaviour("unknown", effect="trace_time"),
    # os.path: string manipulation is pure; questions to the file system are io
    **_each(
        "exists lexists isfile isdir islink ismount getsize getmtime getatime getctime "
        "samefile sameopenfile samestat",
        IO,
        "os.path.",
    ),
    **_each(
        "join basename dirname split splitext splitdrive splitroot abspath normpath "
        "normcase relpath realpath expanduser expandvars commonpath commonprefix isabs",
        PURE,
        "os.path.",
    ),
    # --- io: files, archives, serialisation, network, processes -----------------------------
    "glob.glob": IO,
    "glob.iglob": IO,
    "pickle.dump": IO_NONE,
    "pickle.load": UNKNOWN.with_(effect="io"),
    "pickle.dumps": PURE,
    "pickle.loads": UNKNOWN,
    # SymPy computes on Python values (NAMESPACE_DEFAULTS), but the function `lambdify`
    # builds may compute with tensors (`modules="tensorflow"`): what it gives is unknown.
    "sympy.lambdify": UNKNOWN,
    # Code built at run time: what it does is not known (HY110), nor what eval gives.
    "builtins.exec": Behaviour("none", effect="unknown_code"),
    "builtins.eval": Behaviour("unknown", effect="unknown_code"),
    "json.dump": IO_NONE,
    "json.load": UNKNOWN.with_(effect="io"),
    "json.dumps": PURE,
    "json.loads": UNKNOWN,
    "csv.writer": Behaviour("file", note="its writerow/writerows methods write the file"),
    "csv.DictWriter": Behaviour("file", note="its writerow/writerows methods write the file"),
    "csv.reader": Behaviour("file", note="iterating it reads the file"),
    "csv.DictReader": Behaviour("file", note="iterating it reads the file"),
    "shelve.open": FILE,
    "gzip.open": FILE,
    "bz2.open": FILE,
    "lzma.open": FILE,
    "tarfile.open": FILE,
    "zipfile.ZipFile": FILE,
    "sqlite3.connect": Behaviour("object", effect="io"),
    "tempfile.mkdtemp": IO,
    "tempfile.mkstemp": IO,
    "tempfile.NamedTemporaryFile": FILE,
    "tempfile.TemporaryFile": FILE,
    "tempfile.TemporaryDirectory": Behaviour("object", effect="io"),
    "tempfile.gettempdir": PURE,
    "pathlib.Path": Behaviour("path"),
    "pathlib.PurePath": Behaviour("path"),
    "pathlib.PosixPath": Behaviour("path"),
    "pathlib.Path.cwd": Behaviour("path", effect="io"),
    "pathlib.Path.home": Behaviour("path", effect="io"),
    "urllib.request.urlopen": FILE,
    "urllib.request.urlretrieve": IO,
    "webbrowser.open": IO,
    "yaml.dump": UNKNOWN.with_(effect="io", note="writes when given a stream"),
    "yaml.safe_dump": UNKNOWN.with_(effect="io", note="writes when given a stream"),
    "yaml.load": UNKNOWN,
    "yaml.safe_load": UNKNOWN,
    "h5py.File": FILE,
    "PIL.Image.open": Behaviour("object", effect="io"),
    "imageio.imread": Behaviour("numpy", effect="io"),
    "imageio.imwrite": IO_NONE,
    "cv2.imread": Behaviour("numpy", effect="io"),
    "cv2.imwrite": IO,
    "cv2.imshow": IO_NONE,
    # --- logging ----------------------------------------------------------------------------
    **_each(
        "debug info warning warn error exception critical fatal log basicConfig disable "
        "captureWarnings",
        LOGGING,
        "logging.",
    ),
    "logging.getLogger": LOGGER,
    "logging.getLevelName": PURE,
    "logging.Logger": LOGGER,
    "logging.Formatter": OBJECT,
    "logging.Handler": OBJECT,
    "logging.StreamHandler": OBJECT,
    "logging.FileHandler": Behaviour("object", effect="io", note="opens the log file"),
    **_each(
        "debug info warning warn error exception fatal log vlog log_every_n log_first_n "
        "log_if set_verbosity set_stderrthreshold",
        LOGGING,
        "absl.logging.",
    ),
    "absl.logging.get_absl_logger": LOGGER,
    "warnings.warn": LOGGING,
    "warnings.warn_explicit": LOGGING,
    "warnings.simplefilter": TRACE_TIME,
    "warnings.filterwarnings": TRACE_TIME,
    "warnings.catch_warnings": OBJECT,
    # --- random -----------------------------------------------------------------------------
    **_each(
        "random randint randrange choice choices sample uniform gauss normalvariate "
        "lognormvariate expovariate vonmisesvariate gammavariate betavariate paretovariate "
        "weibullvariate triangular getrandbits randbytes binomialvariate",
        RANDOM,
        "random.",
    ),
    "random.seed": Behaviour("none", effect="random", note="reseeds Python's global generator"),
    "random.setstate": Behaviour("none", effect="random"),
    "random.getstate": PURE,
    "random.shuffle": Behaviour("none", effect="random", mutated_args=(0,)),
    "random.Random": Behaviour("py_rng"),
    "random.SystemRandom": Behaviour("py_rng"),
    "uuid.uuid1": RANDOM,
    "uuid.uuid4": RANDOM,
    "uuid.uuid3": PURE,
    "uuid.uuid5": PURE,
    "uuid.UUID": PURE,
    # --- clock ------------------------------------------------------------------------------
    **_each(
        "time time_ns perf_counter perf_counter_ns monotonic monotonic_ns process_time "
        "process_time_ns thread_time thread_time_ns ctime asctime localtime gmtime strftime",
        CLOCK,
        "time.",
    ),
    "time.sleep": CLOCK.with_(returns="none"),
    "time.strptime": PURE,
    "time.mktime": PURE,
    "time.struct_time": PURE,
    "datetime.datetime.now": CLOCK,
    "datetime.datetime.utcnow": CLOCK,
    "datetime.datetime.today": CLOCK,
    "datetime.date.today": CLOCK,
    "timeit.default_timer": CLOCK,
    "timeit.timeit": CLOCK,
    # --- mutation of arguments --------------------------------------------------------------
    **_each(
        "heappush heappop heapify heapreplace heappushpop",
        Behaviour("unknown", mutated_args=(0,)),
        "heapq.",
    ),
    "heapq.nlargest": Behaviour("list"),
    "heapq.nsmallest": Behaviour("list"),
    "bisect.insort": Behaviour("none", mutated_args=(0,)),
    "bisect.insort_left": Behaviour("none", mutated_args=(0,)),
    "bisect.insort_right": Behaviour("none", mutated_args=(0,)),
    **_each(
        "setitem delitem iadd iand iconcat ifloordiv ilshift imod imul imatmul ior ipow "
        "irshift isub itruediv ixor",
        Behaviour("unknown", mutated_args=(0,)),
        "operator.",
    ),
    "functools.reduce": UNKNOWN.with_(callback_args=(0, "function")),
    "functools.partial": OBJECT,
    "functools.lru_cache": OBJECT,
    "functools.cache": OBJECT,
    "functools.wraps": OBJECT,
    "copy.copy": UNKNOWN,
    "copy.deepcopy": UNKNOWN,
    "collections.deque": Behaviour("list"),
    "collections.OrderedDict": Behaviour("dict"),
    "collections.defaultdict": Behaviour("dict"),
    "collections.Counter": Behaviour("dict"),
    # --- interpreter-wide state ---------------------------------------------------------------
    "atexit.register": TRACE_TIME.with_(returns="object"),
    "sys.exit": NONE.with_(note="raises SystemExit"),
    "sys.setrecursionlimit": TRACE_TIME,
    "gc.collect": TRACE_TIME.with_(returns="python"),
    "gc.disable": TRACE_TIME,
    "gc.enable": TRACE_TIME,
    "signal.signal": TRACE_TIME.with_(returns="object"),
    "importlib.import_module": OBJECT.with_(effect="trace_time"),
    "importlib.reload": OBJECT.with_(effect="trace_time"),
    "socket.gethostname": PURE,
    "platform.system": PURE,
    "platform.node": PURE,
    "subprocess.list2cmdline": PURE,
}

#: Objects whose attributes are the program's command-line flags (absl and TF 1 style). A flag
#: is a Python value of the flag's declared type, or of a custom parser's: what kind of value a
#: parameter receives from one is not known here, like a field of argparse's `parse_args()`.
COMMAND_LINE_FLAGS: frozenset[str] = frozenset(
    {
        "absl.flags.FLAGS",
        "tensorflow.compat.v1.flags.FLAGS",
        "tensorflow.compat.v1.app.flags.FLAGS",
        "tensorflow.app.flags.FLAGS",
        "tensorflow.flags.FLAGS",
    }
)

#: The functions that define a command-line flag with its default, on the modules whose
#: ``FLAGS`` object is in COMMAND_LINE_FLAGS (TensorFlow's re-export absl's): each is called
#: ``DEFINE_x(name, default, help, ...)`` (absl's documented signatures; ``DEFINE_enum``'s
#: third is the values allowed) and registers ``name`` on ``FLAGS`` holding ``default`` until
#: the command line is parsed or a program assigns ``FLAGS.name`` / ``FLAGS[name].value``.
FLAG_DEFINITIONS: frozenset[str] = frozenset(
    {
        "DEFINE_bool",
        "DEFINE_boolean",
        "DEFINE_integer",
        "DEFINE_float",
        "DEFINE_string",
        "DEFINE_enum",
    }
)

#: Behaviour of unknown names by enclosing module (longest match wins). None: no guess.
NAMESPACE_DEFAULTS: dict[str, Behaviour | None] = {
    "absl.flags": PURE,
    "absl.logging": LOGGING,
    "abc": PURE,
    "argparse": PURE,
    "array": PURE,
    "base64": PURE,
    "binascii": PURE,
    "bisect": PURE,
    "builtins": None,
    "cmath": PURE,
    "collections": PURE,
    "contextlib": OBJECT,
    "copy": UNKNOWN,
    "csv": PURE,
    "dataclasses": PURE,
    "datetime": PURE,
    "decimal": PURE,
    "enum": PURE,
    "fnmatch": PURE,
    "fractions": PURE,
    "ftplib": IO,
    "functools": OBJECT,
    "hashlib": PURE,
    "heapq": PURE,
    "hmac": PURE,
    "http.client": IO,
    "inspect": PURE,
    "itertools": Behaviour("iterator"),
    "json": PURE,
    "logging": LOGGING,
    "math": PURE,
    "mpmath": PURE,
    "matplotlib.pyplot": Behaviour(
        "object", effect="plot", note="draws into matplotlib's global figure state"
    ),
    "mlflow": IO,
    "multiprocessing": Behaviour("object", effect="io"),
    "numbers": PURE,
    "operator": PURE,
    "os": IO,
    "os.path": PURE,
    "pathlib": Behaviour("path"),
    "pickle": PURE,
    "pprint": PURE,
    "random": RANDOM,
    "re": PURE,
    "requests": IO.with_(note="network request"),
    "secrets": RANDOM,
    "shutil": IO,
    "smtplib": IO,
    "socket": IO,
    "statistics": PURE,
    "string": PURE,
    "struct": PURE,
    "subprocess": IO,
    "sympy": PURE,
    "sympy.utilities.lambdify": UNKNOWN,
    "sys": None,
    "tempfile": IO,
    "textwrap": PURE,
    "threading": Behaviour("object", effect="io"),
    "time": CLOCK,
    "tqdm": Behaviour("iterator", effect="print"),
    "typing": PURE,
    "unicodedata": PURE,
    "urllib.parse": PURE,
    "urllib.request": IO,
    "uuid": PURE,
    "wandb": IO.with_(note="experiment tracking: writes logs, talks to a server"),
    "tensorboardX": IO,
    "warnings": LOGGING,
    "zlib": PURE,
}

#: Libraries that compute only on Python values: their functions read a number with
#: `__float__`/`__index__` (`math.floor`, `fractions.Fraction`) or take it into their own
#: object model (`sympy.sympify`), and give back Python values (NAMESPACE_DEFAULTS: PURE).
#: An eager tensor converts; a symbolic one, what a compiled function's parameter is, does
#: not (TF 2.21: `math.floor(x)` raises TypeError, `sympy.sympify(x)` a StagingError once
#: AutoGraph converts SymPy's own code, `fractions.Fraction(x)` a TypeError; tests
#: `test_facts_python_value_libraries.py`). `sympy.lambdify` is not one: the function it
#: builds may compute with tensors (`modules="tensorflow"`).
VALUE_LIBRARIES: frozenset[str] = frozenset(
    {"math", "cmath", "fractions", "decimal", "statistics", "sympy", "mpmath"}
)
NOT_VALUE_LIBRARY_CALLS: frozenset[str] = frozenset({"sympy.lambdify", "sympy.utilities.lambdify"})


def value_library(name: str) -> str | None:
    """The library of VALUE_LIBRARIES a qualified name belongs to (None for none)."""
    if any(name == n or name.startswith(n + ".") for n in NOT_VALUE_LIBRARY_CALLS):
        return None
    root = name.split(".", 1)[0]
    return root if root in VALUE_LIBRARIES and "." in name else None


#: Decorators that memoise a function (``functools.lru_cache``, ``functools.cache``): a call
#: with arguments equal to an earlier call's returns the stored result without running the
#: body (documented: "Decorator to wrap a function with a memoizing callable"); the arguments
#: must be hashable, the cache's key is built from them.
MEMOIZING_DECORATORS: frozenset[str] = frozenset({"functools.lru_cache", "functools.cache"})

#: Calls that make a partial application: ``functools.partial(f, *args, **kwargs)`` gives an
#: object whose call ``p(*more, **kw)`` calls ``f(*args, *more, **{**kwargs, **kw})``
#: (documented: "Return a new partial object which when called will behave like func called
#: with the positional arguments args and keyword arguments keywords").
PARTIAL_APPLICATIONS: frozenset[str] = frozenset({"functools.partial"})

#: Calls that return one of their arguments unchanged, by its position: ``typing.cast(typ,
#: val)`` "Cast a value to a type. This returns the value unchanged. To the type checker this
#: signals that the return value has the designated type, but at runtime we intentionally don't
#: check anything" (documented). The value flows through: `self.term = cast(Base, term)` keeps
#: the term's class, so a later `self.term(x)` reaches its `forward` / `call`.
ARGUMENT_RETURNING_CALLS: dict[str, int] = {"typing.cast": 1}

#: Names that are classes (``kind`` "class"); everything else in STDLIB is a function.
CLASSES: frozenset[str] = frozenset(
    {f"builtins.{name}" for name in dir(builtins) if isinstance(getattr(builtins, name), type)}
    | {
        "io.StringIO",
        "io.BytesIO",
        "csv.DictWriter",
        "csv.DictReader",
        "zipfile.ZipFile",
        "tempfile.TemporaryDirectory",
        "pathlib.Path",
        "pathlib.PurePath",
        "pathlib.PosixPath",
        "logging.Logger",
        "logging.Formatter",
        "logging.Handler",
        "logging.StreamHandler",
        "logging.FileHandler",
        "random.Random",
        "random.SystemRandom",
        "uuid.UUID",
        "time.struct_time",
        "collections.deque",
        "collections.OrderedDict",
        "collections.defaultdict",
        "collections.Counter",
        "functools.partial",
        "warnings.catch_warnings",
        "h5py.File",
        "tqdm.tqdm",
        "tqdm.auto.tqdm",
        "tqdm.notebook.tqdm",
    }
)

#: Builtin names that may be written bare (``print``) rather than ``builtins.print``.
BUILTIN_NAMES: frozenset[str] = frozenset(
    name for name in dir(builtins) if not name.startswith("_")
)


def namespace_default(name: str) -> Behaviour | None:
    """Behaviour of an unknown ``name`` by its longest enclosing module (None: unknown)."""
    end = len(name)
    while (end := name.rfind(".", 0, end)) > 0:
        prefix = name[:end]
        if prefix in NAMESPACE_DEFAULTS:
            return NAMESPACE_DEFAULTS[prefix]
    return None


STRING_METHODS = frozenset(
    {
        "decode",
        "encode",
        "split",
        "rsplit",
        "splitlines",
        "strip",
        "lstrip",
        "rstrip",
        "lower",
        "upper",
        "startswith",
        "endswith",
        "replace",
        "find",
        "isdigit",
        "isalpha",
    }
)
"""Methods of Python strings and bytes that a tensor does not have (a string tensor is
handled with `tf.strings`): called on a tensor they raise AttributeError."""
REGEX_STRING_ARGUMENTS = {
    "re.match": 1,
    "re.search": 1,
    "re.fullmatch": 1,
    "re.findall": 1,
    "re.finditer": 1,
    "re.split": 1,
    "re.sub": 2,
    "re.subn": 2,
}
"""The position of the string the `re` functions search: given a tensor, they raise
TypeError ("expected string or bytes-like object")."""


NAMEDTUPLE_FACTORIES: frozenset[str] = frozenset({"collections.namedtuple", "typing.NamedTuple"})
"""What makes a named tuple class, called (`collections.namedtuple("P", "x y")`) or as a base
(`class P(typing.NamedTuple)`). A framework's compiler may rebuild such a tuple as
`type(x)(*fields)`: `facts/hashability.namedtuple_rebuilt_wrong` (measured on TF 2.21,
tests/analyzer/test_rebuilt_namedtuples_measured.py)."""
