"""Each language's query names its declarations, qualified by what encloses them."""

from __future__ import annotations

import textwrap

import pytest

from wherein.chunking import chunk_source
from wherein.ranking.signals import in_test_module


def symbols_of(path: str, source: str) -> list[str]:
    """Symbols of all chunks in order; a small snippet is one chunk, so repeats collapse."""
    _language, chunks = chunk_source(path, textwrap.dedent(source).lstrip("\n"))
    return [symbol for chunk in chunks for symbol in chunk.symbols]


CASES = {
    "python": (
        "m.py",
        """
        MAX_RETRIES = 3
        __all__ = ["Client"]
        type Ids = list[int]

        class Client:
            timeout = 5

            @property
            def url(self):
                def helper():
                    return 1
                local = 2
                return helper()
        """,
        "MAX_RETRIES Ids Client Client.url Client.url.helper",
    ),
    "perl": (
        "lib/Mojo/Pool.pm",
        """
        package Mojo::Pool;
        use Mojo::Base -base;
        use constant DEBUG => 0;

        has 'max_connections' => 5;
        has timeout => sub { 10 };

        sub acquire {
          my $self = shift;
          return $self->{free}[0];
        }

        sub _release { }
        """,
        "Mojo::Pool DEBUG max_connections timeout acquire _release",
    ),
    "erlang": (
        "src/pool.erl",
        """
        -module(pool).
        -export([checkout/1]).
        -record(state, {free = [], busy = []}).
        -define(TIMEOUT, 5000).
        -type worker() :: pid().
        -opaque ref() :: reference().
        -callback handle(term()) -> ok.

        checkout(#state{free = [W | Rest]} = S) ->
            {W, S#state{free = Rest}};
        checkout(S) ->
            {none, S}.
        """,
        "pool state TIMEOUT worker ref handle checkout",
    ),
    "ocaml": (
        "lib/pool.ml",
        """
        type t = { free : int list }
        exception Empty of string
        external now : unit -> float = "caml_now"

        let create n = let free = List.init n Fun.id in { free }

        module Queue = struct
          let push x q = x :: q
        end

        module type POOL = sig
          val size : t -> int
        end

        class counter = object
          method incr = 1
        end
        """,
        "t Empty now create Queue Queue.push POOL POOL.size counter counter.incr",
    ),
    "ocaml_interface": (
        "lib/pool.mli",
        """
        type t
        val create : int -> t
        external now : unit -> float = "caml_now"
        module Queue : sig
          val push : int -> t -> t
        end
        """,
        "t create now Queue Queue.push",
    ),
    "nim": (
        "src/pool.nim",
        """
        type
          Pool* = object
            free: seq[int]
          Mode = enum
            fifo, lifo

        const MaxSize* = 10
        var created = 0

        proc newPool*(n: int): Pool =
          let local = n
          result = Pool(free: newSeq[int](local))

        func size(p: Pool): int = p.free.len
        proc `[]`*[T](p: Pool, i: int): int = p.free[i]
        iterator items*(p: Pool): int =
          for x in p.free: yield x
        template withPool(body: untyped) = body
        macro generate(n: static int): untyped = discard
        """,
        "Pool Mode MaxSize created newPool size `[]` items withPool generate",
    ),
    "clojure": (
        "src/pool/core.clj",
        """
        (ns pool.core
          (:require [clojure.string :as str]))

        (def ^:dynamic *size* 10)

        (defn checkout
          "Takes a connection."
          [pool]
          (let [conn (first pool)] conn))

        (defn- release [pool conn] (conj pool conn))
        (defmacro with-conn [binding & body] `(let ~binding ~@body))
        (defprotocol Closeable (close [this]))
        (defrecord Conn [id])
        """,
        "pool.core *size* checkout release with-conn Closeable Conn",
    ),
    "javascript": (
        "m.js",
        """
        export const LIMIT = 10;
        class Bus extends Base {
          #queue = [];
          handle = () => {};
          emit(topic) { const local = 1; return local; }
          #drain() {}
        }
        const make = () => new Bus();
        function* ids() {}
        Bus.prototype.reset = function () {};
        module.exports = { run: function () {} };
        """,
        "LIMIT Bus Bus.handle Bus.emit Bus.#drain make ids reset run",
    ),
    "typescript": (
        "m.ts",
        """
        export interface Repo<T> { get(id: string): T }
        export type Id = string;
        enum Color { Red }
        namespace Billing { export function total(): number { return 0 } }
        declare module "cache" { export function get(key: string): string; }
        export abstract class Base { abstract run(): void; protected stop() {} }
        export const handler = async (event: Event): Promise<void> => {};
        """,
        "Repo Repo.get Id Color Billing.total cache.get Base Base.run Base.stop handler",
    ),
    "tsx": (
        "m.tsx",
        """
        interface Props { title: string }
        export function Card({ title }: Props) { return <h1>{title}</h1>; }
        export const List = () => <ul />;
        """,
        "Props Card List",
    ),
    "go": (
        "m.go",
        """
        package m
        const Max = 10
        var ErrClosed = errors.New("closed")
        type Server struct{}
        type Handler interface{ Serve() }
        type ID = string
        type List[T any] struct{}
        func (s *Server) Start() error { var local int; return nil }
        func (s Server) Name() string { return "" }
        func (l *List[T]) Push(v T) {}
        func New() *Server { return &Server{} }
        """,
        "Max ErrClosed Server Handler Handler.Serve ID List Server.Start Server.Name List.Push New",
    ),
    "rust": (
        "m.rs",
        """
        pub const MAX: usize = 3;
        pub struct Point { x: i32 }
        pub enum Shape { Circle }
        pub trait Area { fn area(&self) -> f64; }
        impl Point { pub fn new() -> Self { Point { x: 0 } } }
        impl Area for Point { fn area(&self) -> f64 { 0.0 } }
        impl<T> Wrapper<T> { fn get(&self) {} }
        mod tests { fn helper() {} }
        macro_rules! square { ($x:expr) => { $x * $x }; }
        type Result<T> = std::result::Result<T, Error>;
        """,
        (
            "MAX Point Shape Area Area.area Point.new Point.area Wrapper Wrapper.get "
            "tests.helper square Result"
        ),
    ),
    "java": (
        "M.java",
        """
        public class Shop {
            public static final int LIMIT = 5;
            private int count;
            public Shop() {}
            void buy() { int local = 1; }
            record Item(String sku) {}
            enum Kind { A }
        }
        interface Listener { int MAX = 3; void changed(); }
        @interface Tag { String value(); }
        """,
        "Shop Shop.LIMIT Shop.count Shop.Shop Shop.buy Shop.Item Shop.Kind Shop.Kind.A"
        " Listener Listener.MAX Listener.changed Tag Tag.value",
    ),
    "c": (
        "m.c",
        """
        #ifndef RING_H
        #define RING_H
        #define CAPACITY 64
        struct ring { int head; };
        typedef struct { int x; } point_t;
        enum color { RED };
        int ring_push(struct ring *r, int v);
        static int counter = 0;
        char *ring_name(void) { static char buf[8]; return buf; }
        int main(void) { int local = 0; return local; }
        #endif
        """,
        "CAPACITY ring point_t color ring_push counter ring_name main",
    ),
    "cpp": (
        "m.cpp",
        """
        namespace gfx {
        class Widget {
         public:
          Widget();
          ~Widget();
          void draw() const;
          bool operator==(const Widget& other) const;
        };
        void Widget::draw() const { int local = 0; }
        Widget::~Widget() {}
        using Id = int;
        int frames = 0;
        }  // namespace gfx
        #ifdef GFX_DEBUG
        void dump(const gfx::Widget& w);
        #endif
        """,
        (
            "gfx.Widget gfx.Widget.Widget gfx.Widget.~Widget gfx.Widget.draw "
            "gfx.Widget.operator== gfx.Id gfx.frames dump"
        ),
    ),
    "objc": (
        "m.mm",
        """
        #define GREETER_H
        #define MAX_TIMES 3
        @protocol Greeter <NSObject>
        - (void)greet:(NSString *)name times:(int)n;
        @property (nonatomic, copy) NSString *title;
        @end
        @interface Widget : NSObject <Greeter>
        + (instancetype)widgetWithName:(NSString *)name;
        @end
        @implementation Widget (Drawing)
        - (void)drawInRect:(CGRect)rect { int local = 0; }
        @end
        typedef struct { int x; } Point2;
        typedef NS_ENUM(NSInteger, Mode) {
          ModeOn,
        };
        typedef NS_OPTIONS(NSUInteger, Flags) {
          FlagA = 1 << 0,
        };
        extern NSString *const WidgetKey;
        struct Pair { int a; };
        struct Pair *last_pair;
        static NSString *title_of(id thing) { return nil; }
        """,
        (
            "MAX_TIMES Greeter Greeter.greet Greeter.title Widget Widget.widgetWithName "
            "Widget.drawInRect Point2 Mode Flags WidgetKey Pair last_pair title_of"
        ),
    ),
    "csharp": (
        "M.cs",
        """
        namespace Shop.Orders
        {
            public interface IRepo { void Save(); }
            public class Order
            {
                public const int Max = 3;
                private int _count;
                public Order() {}
                public int Count { get; }
                public void Pay() { int local = 1; }
            }
            public enum State { Open }
            public record Line(string Sku);
        }
        """,
        (
            "Shop.Orders.IRepo Shop.Orders.IRepo.Save Shop.Orders.Order "
            "Shop.Orders.Order.Max Shop.Orders.Order.Order Shop.Orders.Order.Count "
            "Shop.Orders.Order.Pay Shop.Orders.State Shop.Orders.Line"
        ),
    ),
    "ruby": (
        "m.rb",
        """
        module Billing
          VERSION = "1.0"
          class Invoice < Base
            def self.build; end
            def total; local = 1; end
          end
        end
        def helper; end
        """,
        (
            "Billing Billing.VERSION Billing.Invoice Billing.Invoice.build "
            "Billing.Invoice.total helper"
        ),
    ),
    "php": (
        "m.php",
        """
        <?php
        namespace App;
        const LIMIT = 3;
        trait Logs { function log() {} }
        class Mailer {
            const MAX = 5;
            /** @var Handler[] */
            protected $handlers;
            public function send() { $local = 1; }
        }
        enum Suit { case Hearts; }
        function helper() {}
        """,
        "LIMIT Logs Logs.log Mailer Mailer.MAX Mailer.handlers Mailer.send Suit helper",
    ),
    "kotlin": (
        "m.kt",
        """
        const val MAX = 3
        typealias Handler = (Int) -> Unit
        class Service {
            private val retries = 3
            fun run() { val local = 1 }
            companion object {
                const val TAG = "svc"
            }
        }
        object Registry {
            fun register() {}
        }
        fun String.shout(): String = uppercase()
        """,
        "MAX Handler Service Service.retries Service.run Service.TAG Registry Registry.register"
        " String.shout",
    ),
    "swift": (
        "m.swift",
        """
        let pageSize = 25
        protocol Feed { func load() }
        struct Article { init(id: Int) {} func title() -> String { let local = ""; return local } }
        extension Article { func summary() -> String { "" } }
        typealias Done = () -> Void
        """,
        "pageSize Feed Feed.load Article Article.init Article.title Article.summary Done",
    ),
    "scala": (
        "m.scala",
        """
        trait Clock { def now(): Long }
        class Ledger { val precision = 2; def post(): Unit = { val local = 1 } }
        object Ledger { def apply(): Ledger = new Ledger(); def ++(other: Ledger): Ledger = other }
        type Id = String
        """,
        "Clock Clock.now Ledger Ledger.precision Ledger.post Ledger.apply Ledger.++ Id",
    ),
    "bash": (
        "m.sh",
        """
        readonly VERSION=1
        DIR=/tmp
        log() { echo "$*"; }
        function deploy {
          local target=$1
          TARGET=$target
        }
        """,
        "VERSION DIR log deploy",
    ),
    "lua": (
        "m.lua",
        """
        local M = {}
        local function helper() local inner = 1 end
        function M.new() end
        function M:start() end
        M.stop = function() end
        return M
        """,
        "M helper M.new M.start M.stop",
    ),
    "elixir": (
        "m.ex",
        """
        defmodule Shop.Cart do
          @moduledoc "Carts."
          @max 10
          @type t :: map()
          @doc "New."
          @spec new() :: t()
          def new, do: %{}
          def add(cart, sku) when is_binary(sku), do: cart
          defp check(x) do
            x
          end
          defmacro debug(expr), do: expr
        end
        """,
        (
            "Shop.Cart Shop.Cart.max Shop.Cart.t Shop.Cart.new Shop.Cart.add Shop.Cart.check "
            "Shop.Cart.debug"
        ),
    ),
    "dart": (
        "m.dart",
        """
        const int maxRetries = 3;
        typedef Handler = void Function(int code);
        abstract class Shape { double get area; }
        class Circle extends Shape {
          static const double pi = 3.14;
          final double radius;
          Circle(this.radius);
          factory Circle.fromJson(Map<String, Object?> json) => Circle(1);
          @override
          double get area => pi * radius * radius;
          void draw() { void inner() {} final local = 1; }
        }
        mixin Logs on Object { void log(String m) {} }
        extension Shout on String { String shout() => toUpperCase(); }
        enum Color { red, green }
        Future<void> main() async {}
        """,
        (
            "maxRetries Handler Shape Shape.area Circle Circle.pi Circle.Circle "
            "Circle.fromJson Circle.area Circle.draw Logs Logs.log Shout Shout.shout Color main"
        ),
    ),
    "haskell": (
        "m.hs",
        """
        module Queue where
        data Task = Task { name :: String }
        newtype Id = Id Int
        class Describe a where
          describe :: a -> String
        instance Describe Task where
          describe = name
        limit :: Int
        limit = 10
        push :: Task -> [Task] -> [Task]
        push t ts = t : ts
        """,
        "Task Id Describe Describe.describe Task.describe limit push",
    ),
    "zig": (
        "m.zig",
        """
        const std = @import("std");
        pub const Point = struct {
            x: i32,
            pub fn init(x: i32) Point {
                const local = x;
                return .{ .x = local };
            }
        };
        fn helper() void {}
        """,
        "Point Point.init helper",
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_declarations_are_named_and_qualified(language):
    path, source, expected = CASES[language]
    assert chunk_source(path, "x\n")[0] == language
    assert symbols_of(path, source) == expected.split()


def test_elixir_ignores_attributes_that_annotate_rather_than_name():
    symbols = symbols_of("m.ex", CASES["elixir"][1])
    assert not {"Shop.Cart.moduledoc", "Shop.Cart.doc", "Shop.Cart.spec"} & set(symbols)


def test_elixir_other_unary_operators_on_a_call_name_nothing():
    source = (
        "defmodule M do\n"
        "  @limit 3\n"
        "  def run(xs) do\n"
        "    if !valid?(xs), do: raise(ArgumentError)\n"
        "    if not is_nil(xs), do: Enum.map(xs, &wrap(&1))\n"
        "  end\n"
        "end\n"
    )
    assert symbols_of("m.ex", source) == ["M", "M.limit", "M.run"]


def test_dart_constructors_accessors_typedefs_and_unnamed_extensions_are_named():
    source = """
        var counter = 0;
        typedef int Compare(int a, int b);
        typedef T Pick<T>(T a, T b);
        class Circle {
          static final Circle origin = Circle.zero();
          Circle.unit() : radius = 1;
          const Circle.zero() : radius = 0;
          factory Circle.copy(Circle other) = Circle.unit;
          set size(double value) {}
        }
        extension on int { int twice() => this * 2; }
        int get topGetter => 1;
        set topSetter(int value) {}
        """
    assert symbols_of("m.dart", source) == [
        "counter",
        "Compare",
        "Pick",
        "Circle",
        "Circle.origin",
        "Circle.unit",
        "Circle.zero",
        "Circle.copy",
        "Circle.size",
        "int",
        "int.twice",
        "topGetter",
        "topSetter",
    ]


def test_a_cpp_header_named_dot_h_is_parsed_as_cpp():
    path, source, expected = CASES["cpp"]
    language, _chunks = chunk_source("gfx.h", textwrap.dedent(source).lstrip("\n"))
    assert language == "cpp"
    assert symbols_of("gfx.h", source) == expected.split()


def test_objective_c_headers_and_m_files_are_objective_c_and_matlab_is_text():
    path, source, expected = CASES["objc"]
    for name in ("Widget.h", "Widget.m"):
        language, _chunks = chunk_source(name, textwrap.dedent(source).lstrip("\n"))
        assert language == "objc"
        assert symbols_of(name, source) == expected.split()
    assert chunk_source("Widget.h", '#import "Greeter.h"\nint count;\n')[0] == "objc"
    matlab = "function y = square(x)\n  % the square of x\n  y = x .^ 2;\nend\n"
    assert chunk_source("square.m", matlab)[0] == "text"


def test_a_c_header_stays_c_whatever_its_comments_and_guards_say():
    source = """
        /* A ring buffer, after Rust's `std::collections::VecDeque`;
           the class of errors it returns is below. */
        #ifdef __cplusplus
        extern "C" {
        #endif
        struct ring { int head; };
        int ring_push(struct ring *r, int value);
        #ifdef __cplusplus
        }
        #endif
        """
    language, _chunks = chunk_source("ring.h", textwrap.dedent(source).lstrip("\n"))
    assert language == "c"
    assert symbols_of("ring.h", source) == ["ring", "ring_push"]


@pytest.mark.parametrize(
    ("first_line", "language"),
    [
        ("#!/bin/bash", "bash"),
        ("#!/usr/bin/env -S python3.12 -u", "python"),
        ("#! /usr/local/bin/ruby -w", "ruby"),
        ("#!/usr/bin/awk -f", "text"),
    ],
)
def test_a_script_with_no_extension_is_read_in_the_language_of_its_first_line(first_line, language):
    body = {
        "bash": "deploy() {\n  echo go\n}\n",
        "python": "def deploy():\n    return 1\n",
        "ruby": "def deploy\n  1\nend\n",
        "text": "{ print $1 }\n",
    }[language]
    found, chunks = chunk_source("bin/deploy", f"{first_line}\n{body}")
    assert found == language
    assert [s for c in chunks for s in c.symbols] == ([] if language == "text" else ["deploy"])
    assert chunk_source("notes.txt", f"{first_line}\n{body}")[0] == "text"  # an extension rules


def test_rust_impl_for_a_primitive_type_names_its_methods():
    source = """
        impl Describe for usize {
            fn describe(&self) -> String { format!("{self}") }
        }
        """
    assert symbols_of("m.rs", source) == ["usize", "usize.describe"]


def test_cpp_qualified_and_specialized_names_name_their_class_and_function():
    source = """
        template <> constexpr int ordinalCount<Align>() { return 11; }
        bool Object::isHostObject<HostObject>(Runtime& rt) const { return true; }
        Outer::Inner::Leaf::Leaf(int pageId) : pageId_(pageId) {}
        std::string* Box<T>::label() { return nullptr; }
        const Item& ns::Shelf::at(int i) const { return items_[i]; }
        unsigned Counter::hits = 0;
        bool operator==(const Item& a, const Item& b);
        static const char* names[2] = {"a", "b"};
        template <typename T> constexpr bool is_small_v = sizeof(T) < 8;
        template <typename T> int rank_of();
        """
    assert symbols_of("m.cpp", source) == [
        "ordinalCount",
        "Object.isHostObject",
        "Leaf.Leaf",
        "Box.label",
        "Shelf.at",
        "Counter.hits",
        "operator==",
        "names",
        "is_small_v",
        "rank_of",
    ]


def test_c_include_guard_is_not_a_symbol_but_a_valued_macro_is():
    symbols = symbols_of("m.h", CASES["c"][1])
    assert "RING_H" not in symbols and "CAPACITY" in symbols


def test_a_name_the_parser_made_up_to_recover_from_an_error_names_nothing():
    # The C grammar recovers from an attribute between `#if` lines with an empty declarator.
    source = 'static struct S stub\n#if X\n    __attribute__((a))\n#endif\n    = { .name = "x" };\n'
    assert symbols_of("a.c", source) == ["stub"]


FLOW = """
    /**
     * @flow strict-local
     */
    export type Props = { title: string, count?: number };
    export class Banner extends React.Component<Props> {
      height: number = 10;
      render(): React.Node {
        return null;
      }
    }
    export function show(props: Props): void {}
    """


def test_javascript_marked_flow_is_parsed_with_its_types_and_stays_javascript():
    language, chunks = chunk_source("Banner.js", textwrap.dedent(FLOW).lstrip("\n"))
    assert language == "javascript"  # --lang javascript still finds it
    assert [s for c in chunks for s in c.symbols] == ["Props", "Banner", "Banner.render", "show"]
    # Without the mark, the JavaScript grammar meets the types as errors and names less.
    assert symbols_of("Banner.js", FLOW.replace("@flow", "@format")) == ["Banner"]


NAMESPACED = {
    "php": ("Handler.php", "<?php\nnamespace Acme\\Mail;\nuse Psr\\Log;\nclass Sender {}\n"),
    "php braced": ("Braced.php", "<?php\nnamespace Acme {\n  function send() {}\n}\n"),
    "csharp": ("Sender.cs", "namespace Acme.Mail\n{\n    public class Sender { }\n}\n"),
    "csharp file-scoped": ("Sender.cs", "namespace Acme.Mail;\npublic class Sender { }\n"),
    "cpp": ("sender.cc", "namespace acme {\nnamespace mail {\nvoid Send() {}\n}\n}\n"),
    "haskell": ("Sender.hs", "module Acme.Mail where\nsend :: IO ()\nsend = pure ()\n"),
    "ruby": ("mail.rb", "module Acme\n  # Mail.\n  module Mail\n    class Sender; end\n  end\nend"),
    "typescript": ("sender.ts", "namespace Acme { export function send() {} }\n"),
    "rust": ("lib.rs", "mod acme { pub fn send() {} }\nmod mail;\n"),
}
INSIDE = {
    "php": ["Sender"],  # a `namespace x;` statement encloses nothing
    "php braced": ["Acme.send"],
    "csharp": ["Acme.Mail.Sender"],
    "csharp file-scoped": ["Sender"],
    "cpp": ["acme.mail.Send"],
    "haskell": ["send"],
    "ruby": ["Acme.Mail.Sender"],
    "typescript": ["Acme.send"],
    "rust": ["acme.send"],
}


@pytest.mark.parametrize("case", sorted(NAMESPACED))
def test_a_namespace_qualifies_the_names_inside_it_and_is_no_name_itself(case):
    # Each file of a project opens with the same namespace: as a name, it made every
    # file's preamble the definition a query naming the project asks for.
    path, source = NAMESPACED[case]
    assert symbols_of(path, source) == INSIDE[case]


def test_a_ruby_module_with_methods_or_constants_of_its_own_is_a_name():
    methods = "module Acme\n  def self.mail; end\n  class Sender; end\nend\n"
    assert symbols_of("acme.rb", methods) == ["Acme", "Acme.mail", "Acme.Sender"]
    constants = "module Acme\n  VERSION = '1'\nend\n"
    assert symbols_of("version.rb", constants) == ["Acme", "Acme.VERSION"]
    assert symbols_of("empty.rb", "module Acme\nend\n") == []


def prototypes_of(path: str, source: str) -> list[str]:
    _language, chunks = chunk_source(path, textwrap.dedent(source).lstrip("\n"))
    return [name for chunk in chunks for name in chunk.prototypes]


def test_c_names_declared_without_a_body_are_prototypes():
    header = """
        #define CAPACITY 64
        #define ring_alloc ring_alloc__internal
        int ring_push(struct ring *r, int v);
        char *ring_name(void);
        extern int ring_count;
        static int counter = 0;
        """
    assert symbols_of("ring.h", header) == [
        "CAPACITY",
        "ring_alloc",
        "ring_push",
        "ring_name",
        "ring_count",
        "counter",
    ]
    assert prototypes_of("ring.h", header) == ["ring_alloc", "ring_push", "ring_name", "ring_count"]
    # Declared and defined in one chunk: a definition.
    assert (
        prototypes_of("ring.c", "int ring_push(int v);\nint ring_push(int v) { return v; }\n") == []
    )


def test_cpp_methods_declared_in_their_class_are_prototypes_until_defined():
    _path, source, _expected = CASES["cpp"]
    assert prototypes_of("gfx.h", source) == [
        "gfx.Widget.Widget",
        "gfx.Widget.operator==",
        "dump",
    ]
    inline = "class Box {\n  int size() const { return 1; }\n  void grow();\n};\n"
    assert prototypes_of("box.h", inline) == ["Box.grow"]


# Declarations without a body beside ones with a body, in languages other than C's: only
# the bodiless are prototypes. (path, source, the names that are.)
BODILESS = {
    "java": (
        "Shape.java",
        """
        interface Shape { double area(); default int sides() { return 0; } }
        abstract class Base { abstract void draw(); native void poke(); void show() {} }
        """,
        ["Shape.area", "Base.draw", "Base.poke"],
    ),
    "csharp": (
        "Shape.cs",
        """
        interface IShape { double Area(); }
        abstract class Base { public abstract void Draw(); public int Sides() => 0; }
        """,
        ["IShape.Area", "Base.Draw"],
    ),
    "kotlin": (
        "Shape.kt",
        """
        interface Shape { fun area(): Double
          fun sides() = 0 }
        abstract class Base { abstract fun draw()
          fun show() { } }
        """,
        ["Shape.area", "Base.draw"],
    ),
    "swift": (
        "Shape.swift",
        """
        protocol Shape { func area() -> Double
          init(size: Int) }
        struct Square: Shape { func area() -> Double { return 1 } }
        """,
        ["Shape.area", "Shape.init"],
    ),
    "rust": (
        "shape.rs",
        """
        trait Shape { fn area(&self) -> f64; fn sides(&self) -> u8 { 0 } }
        extern "C" { fn c_area(x: f64) -> f64; }
        """,
        ["Shape.area", "c_area"],
    ),
    "typescript": (
        "shape.ts",
        """
        interface Shape { area(): number; size: number }
        abstract class Base { abstract draw(): void; show(): void {} }
        class Grid { at(i: number): number; at(i: any) { return i; } }
        declare function measure(x: number): number;
        export function parse(x: string): number;
        """,
        ["Shape.area", "Base.draw", "measure", "parse"],
    ),
    "php": (
        "Shape.php",
        """
        <?php
        interface Shape { public function area(); }
        abstract class Base { abstract protected function draw(); public function show() {} }
        """,
        ["Shape.area", "Base.draw"],
    ),
    "scala": (
        "Shape.scala",
        """
        trait Shape { def area: Double
          def sides: Int = 0 }
        """,
        ["Shape.area"],
    ),
    "go": (
        "shape.go",
        """
        package shape
        type Shape interface { Area() float64 }
        func (s Square) Area() float64 { return 1 }
        """,
        ["Shape.Area"],
    ),
    "dart": (
        "shape.dart",
        """
        abstract class Shape { double area(); int sides() => 0; }
        """,
        ["Shape.area"],
    ),
}


@pytest.mark.parametrize("language", sorted(BODILESS))
def test_declarations_without_a_body_are_prototypes_in_each_language(language):
    # A query naming `area` wants the implementation first, not the interface's signature.
    path, source, bodiless = BODILESS[language]
    assert prototypes_of(path, source) == bodiless


def test_a_typescript_overload_defined_in_the_same_chunk_is_a_definition():
    source = "function pad(x: string): string;\nfunction pad(x: any) { return x; }\n"
    assert symbols_of("pad.ts", source) == ["pad"]
    assert prototypes_of("pad.ts", source) == []


def test_objective_c_methods_of_an_interface_are_prototypes_and_implemented_ones_are_not():
    source = """
        @interface Widget : NSObject
        - (void)draw;
        @end
        extern NSString *const WidgetKey;
        NSString *const WidgetTitle = @"title";
        @implementation Widget
        - (void)draw {}
        @end
        """
    assert symbols_of("Widget.m", source) == [
        "Widget",
        "Widget.draw",
        "WidgetKey",
        "WidgetTitle",
    ]
    assert prototypes_of("Widget.h", source.split("@implementation")[0]) == [
        "Widget.draw",
        "WidgetKey",
    ]


@pytest.mark.parametrize(
    ("path", "source", "names"),
    [
        (
            "app.js",
            "const express = require('express');\nconst LIMIT = 10;\n"
            "function serve() {\n  return express();\n}\n",
            ["LIMIT", "serve"],
        ),
        ("app.ts", "const path = require('path');\nexport const ROOT = path.sep;\n", ["ROOT"]),
        ("app.lua", 'local json = require "cjson"\nlocal M = {}\nreturn M\n', ["M"]),
        (
            "app.zig",
            'const std = @import("std");\nconst Allocator = std.mem.Allocator;\n'
            'pub const List = @import("list.zig").List;\nconst LIMIT = 10;\n'
            'const Pool = struct {\n    const inner = @import("inner.zig");\n};\n'
            "fn serve() void {}\n",
            ["LIMIT", "Pool", "serve"],
        ),
    ],
)
def test_a_module_bound_to_a_name_is_no_declaration(path, source, names):
    # Every file that uses `express` binds it: as a name it made each of them a definition
    # of `express`, first for any question that named the module.
    _language, chunks = chunk_source(path, source)
    assert [name for chunk in chunks for name in chunk.symbols] == names


def test_a_zig_test_is_named_inside_test_so_ranking_can_tell_it_from_code():
    # Zig writes a file's tests in the file: named `test.<name>`, they take the penalty of
    # tests kept beside the code (`in_test_module`), where unnamed they ranked as code.
    source = (
        "fn parseHeader(line: []const u8) !Header {\n"
        + "    // cut the line at its colon\n" * 30
        + "    return error.Invalid;\n}\n\n"
        'test "std.http: parse a header" {\n'
        + '    _ = try parseHeader("a: b");\n'
        * 30
        + '}\n\ntest parseHeader {\n    _ = try parseHeader("c: d");\n}\n\n'
        "test {\n    _ = parseHeader;\n}\n"
    )
    _language, chunks = chunk_source("http.zig", source)
    named = [name for chunk in chunks for name in chunk.symbols]
    assert named == ["parseHeader", 'test."std.http: parse a header"', "test.parseHeader"]
    tests = [chunk for chunk in chunks if chunk.symbols and chunk.symbols[0].startswith("test.")]
    assert tests and all(in_test_module(chunk.symbols) for chunk in tests)


@pytest.mark.parametrize(
    ("path", "open_test", "open_code", "close"),
    [
        ("flate.zig", 'test "round trip" {', "fn roundTrip(data: []const u8) !void {", "}"),
        (
            "src/flate.rs",
            "mod tests {\n    #[test]\n    fn round_trip() {",
            "fn round_trip(data: &[u8]) {",
            "    }\n}",
        ),
    ],
)
def test_every_part_of_a_long_test_is_named_after_it_and_no_part_of_other_code_is(
    path, open_test, open_code, close
):
    # Only a test's first part was named, so ranking counted the rest as code; a function's
    # name still belongs to its first part alone.
    body = "".join(f"    let_{n} = step({n}); // {n}\n" for n in range(120))
    source = f"{open_code}\n{body}}}\n\n{open_test}\n{body}{close}\n"
    _language, chunks = chunk_source(path, source)
    code = [
        chunk
        for chunk in chunks
        if chunk.end_line <= source.count("\n", 0, source.index(open_test))
    ]
    tests = [chunk for chunk in chunks if chunk not in code]
    assert len(code) > 2 and len(tests) > 2
    assert [chunk.symbols for chunk in code[1:]] == [()] * (len(code) - 1)
    assert all(in_test_module(chunk.symbols) for chunk in tests), [c.symbols for c in tests]


# One declaration of several names: each is named, not the first alone.
SEVERAL_DECLARATORS = {
    "java": ("A.java", "class A {\n  int x, y;\n  static final int LOW = 1, HIGH = 2;\n}\n"),
    "c": ("a.c", "int alpha, beta;\nstatic int gamma = 1, delta = 2;\n"),
    "cpp": ("a.cpp", "int g1, g2;\n"),
    "go": ("a.go", "package a\n\nvar x, y int\n"),
}
SEVERAL_NAMED = {
    "java": ["A", "A.x", "A.y", "A.LOW", "A.HIGH"],
    "c": ["alpha", "beta", "gamma", "delta"],
    "cpp": ["g1", "g2"],
    "go": ["x", "y"],
}


@pytest.mark.parametrize("language", sorted(SEVERAL_DECLARATORS))
def test_every_declarator_of_one_declaration_is_named(language):
    path, source = SEVERAL_DECLARATORS[language]
    assert symbols_of(path, source) == SEVERAL_NAMED[language]
