"""What a path says about its file: which paths are tests, which are stubs."""

from __future__ import annotations

import pytest

from wherein.ranking.paths import TYPE_STUB_PENALTY, is_test_path, path_penalty


@pytest.mark.parametrize(
    "path",
    [
        # Python, as before.
        "tests/test_app.py",
        "src/pkg/tests/helpers.py",
        "test/unit/api.py",
        "pkg/test_models.py",
        "pkg/models_test.py",
        "conftest.py",
        "tests/testdata/input.json",
        # Swift Package Manager and Xcode.
        "Tests/Support/Stubs.swift",
        "AppTests/Helpers.swift",
        "ios/WorkletsTests/Runner.m",
        "MyAppUITests/Launch.swift",
        "Sources/App/LoginTests.swift",
        # .NET.
        "src/MyLib.Tests/OrderFacts.cs",
        "src/MyLib.UnitTests/Fakes.cs",
        "test/MyLib.IntegrationTests/Setup.cs",
        # Java, Kotlin and Android.
        "app/src/androidTest/java/com/example/LoginFlow.kt",
        "src/test/java/com/example/OrderServiceTest.java",
        "lib/OrderServiceTest.java",
        # JavaScript and TypeScript.
        "src/__mocks__/fs.js",
        "src/__tests__/render.tsx",
        "e2e/login.ts",
        "src/button.test.tsx",
        "src/button.spec.ts",
        "integration_tests/db.go",
        "packages/e2e-tests/checkout.ts",
        # Ruby, Lua, Elixir, Go, PHP (Symfony).
        "lib/rack/request_spec.rb",
        "spec/rack/request.rb",
        "lua/pl/path_spec.lua",
        "test/plug/conn_test.exs",
        "router_test.go",
        "src/Symfony/Component/HttpKernel/Tests/Fixtures/Kernel.php",
    ],
)
def test_paths_of_test_code_are_tests(path):
    assert is_test_path(path)


@pytest.mark.parametrize(
    "path",
    [
        "src/contest.py",
        "contests/scoring.py",
        "latest/release.py",
        "attestation/verify.go",
        "protests/march.rb",
        "src/testimonials.py",
        "Sources/Testing/Expectation.swift",  # the test framework itself
        "src/Monolog/Test/TestCase.php",  # test helpers shipped to users
        "api/openapi_spec.yaml",
        "specification/grammar.md",
        "lib/inspector.rb",
        "src/e2ee/cipher.ts",
        "src/requests/models.py",
    ],
)
def test_paths_that_only_look_like_tests_are_not(path):
    assert not is_test_path(path)


@pytest.mark.parametrize(
    "stub",
    ["types/session.d.ts", "lib/esm.d.mts", "src/list.mli", "pkg/_speedups.pyi", "rbi/rack.rbi"],
)
def test_a_stub_or_interface_yields_to_the_implementation_beside_it(stub):
    assert path_penalty(stub, set()) == TYPE_STUB_PENALTY
    implementation = stub.replace(".d.", ".").replace(".mli", ".ml").replace(".pyi", ".py")
    assert path_penalty(implementation.replace(".rbi", ".rb"), set()) == 1.0
