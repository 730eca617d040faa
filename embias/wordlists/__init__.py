"""Studies: protected classes, their attribute lists, and the neutral/human controls.

Word lists are data: plain-text files, one word per line, ``#`` comments carrying the
provenance, shipped inside the package (top-level ``wordlists/`` in the repository). A
study folder holds

- ``protected.<class>.txt`` — the protected (target) words of each class,
- ``attributes.<class>.txt`` — attribute (stereotype) words of each attribute class,
- ``associations.txt`` — lines ``<protected class> <attribute class>``: which attribute
  class is *associated* with which protected class (the order of the lines is the order
  of the protected classes; for WEAT the first is X, the second Y),
- optionally ``definitional.txt`` (Manzini's definitional sets, one set per line),
  ``neutral.txt`` and ``human.txt`` (else the shared control lists are used).

Files are read as UTF-8 (a byte-order mark is ignored); names are case-sensitive, and a
``.txt`` file with any other name is an error naming it (other files, e.g. a README.md,
may sit in the folder).

The package, one module per idea (every name is also importable from
``embias.wordlists``):

- :mod:`~embias.wordlists.files` — the word-list files: where the shipped ones are
  (:func:`wordlists_dir`), reading a list (:func:`read_wordlist`) and the associations
  (:func:`read_associations`);
- :mod:`~embias.wordlists.study` — a study and its checks, read from a folder or built
  from dicts (:class:`Study`, :func:`with_default_associations`);
- :mod:`~embias.wordlists.shipped` — the shipped studies (:data:`BUILTIN_STUDIES`,
  :func:`load_study`).
"""

# Names imported ``X as X`` are importable from here, as from the module embias.wordlists
# was, but not in __all__.
from .files import read_associations, read_wordlist, wordlists_dir
from .shipped import BUILTIN_STUDIES, load_study
from .study import FOLDER_FILES as FOLDER_FILES
from .study import Study, with_default_associations

__all__ = ["BUILTIN_STUDIES", "Study", "load_study", "read_associations", "read_wordlist",
           "with_default_associations", "wordlists_dir"]
