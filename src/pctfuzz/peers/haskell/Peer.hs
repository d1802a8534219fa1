{-# LANGUAGE CPP #-}
-- pctfuzz's Haskell peer: answers the pctfuzz-peer line protocol, version 1
-- (docs/protocol.md, docs/peers.md) with network-uri's Network.URI (Debian: ghc,
-- libghc-network-uri-dev). `make peers` compiles it with ghc into the build folder; it
-- uses base and network-uri only, so it reads and writes JSON itself.
--
-- Implementation (set names are pctfuzz's canonical names, as `pctfuzz probe` found
-- them; pctfuzz/_internal/oracles/haskell.py declares the same):
--   haskell-network-uri  escapeURIString isUnreserved ("rfc3986-unreserved"; the same
--                        predicate as isUnescapedInURIComponent), escapeURIString
--                        isUnescapedInURI ("encodeURI-[]"), escapeURIString
--                        isAllowedInURI ("encodeURI-%25[]": '%' raw too) (encode),
--                        unEscapeString (decode)
--
-- A Haskell String is a list of Chars, each a code point: a JSON string reaches the
-- library as the same characters, a lone surrogate escape as that surrogate (GHC's Char
-- holds one). unEscapeString answers a String: the peer answers its UTF-8 bytes.
module Main (main) where

import Control.Exception (SomeException, evaluate, try, displayException)
import Data.Bits (shiftL, shiftR, (.&.), (.|.))
import Data.Char (chr, isDigit, isHexDigit, digitToInt, ord)
import Data.List (intercalate)
import Data.Version (showVersion)
import Network.URI (escapeURIString, isAllowedInURI, isUnescapedInURI, isUnreserved,
                    unEscapeString)
import System.IO
import System.Info (compilerName, fullCompilerVersion)

#ifndef NETWORK_URI_VERSION
#define NETWORK_URI_VERSION "unknown"
#endif

impl :: String
impl = "haskell-network-uri"

-- set name -> predicate of escapeURIString
escapers :: [(String, Char -> Bool)]
escapers =
  [ ("rfc3986-unreserved", isUnreserved)
  , ("encodeURI-[]", isUnescapedInURI)
  , ("encodeURI-%25[]", isAllowedInURI)
  ]

-- --- JSON ------------------------------------------------------------------------------
data J = JStr String | JNum Integer | JBool Bool | JNull | JArr [J] | JObj [(String, J)]

parseJson :: String -> Either String J
parseJson s = case value (skip s) of
  Right (v, rest) | all isSpaceJ rest -> Right v
                  | otherwise -> Left "trailing text"
  Left e -> Left e
  where
    isSpaceJ c = c `elem` " \t\r\n"
    skip = dropWhile isSpaceJ
    value ('"' : cs) = do (text, rest) <- string cs; pure (JStr text, skip rest)
    value ('{' : cs) = object (skip cs) []
    value ('[' : cs) = array (skip cs) []
    value ('t':'r':'u':'e':cs) = Right (JBool True, skip cs)
    value ('f':'a':'l':'s':'e':cs) = Right (JBool False, skip cs)
    value ('n':'u':'l':'l':cs) = Right (JNull, skip cs)
    value cs@(c : _) | c == '-' || isDigit c = number cs
    value _ = Left "not JSON"
    number cs =
      let (sign, ds0) = case cs of ('-' : r) -> (-1, r); _ -> (1, cs)
          (ds, rest) = span isDigit ds0
      in if null ds || any (`elem` ".eE") (take 1 rest) then Left "not an integer"
         else Right (JNum (sign * read ds), skip rest)
    object ('}' : cs) acc = Right (JObj (reverse acc), skip cs)
    object ('"' : cs) acc = do
      (k, rest) <- string cs
      case skip rest of
        (':' : r) -> do
          (v, r') <- value (skip r)
          case r' of
            (',' : r'') -> object (skip r'') ((k, v) : acc)
            ('}' : r'') -> Right (JObj (reverse ((k, v) : acc)), skip r'')
            _ -> Left "expected ',' or '}'"
        _ -> Left "expected ':'"
    object _ _ = Left "expected a name"
    array (']' : cs) acc = Right (JArr (reverse acc), skip cs)
    array cs acc = do
      (v, r) <- value cs
      case r of
        (',' : r') -> array (skip r') (v : acc)
        (']' : r') -> Right (JArr (reverse (v : acc)), skip r')
        _ -> Left "expected ',' or ']'"
    string = go []
      where
        go acc ('"' : rest) = Right (reverse acc, rest)
        go acc ('\\' : e : rest) = case e of
          '"' -> go ('"' : acc) rest
          '\\' -> go ('\\' : acc) rest
          '/' -> go ('/' : acc) rest
          'b' -> go ('\b' : acc) rest
          'f' -> go ('\f' : acc) rest
          'n' -> go ('\n' : acc) rest
          'r' -> go ('\r' : acc) rest
          't' -> go ('\t' : acc) rest
          'u' -> do
            (hi, rest') <- hex4 rest
            case rest' of
              ('\\' : 'u' : more) | hi >= 0xD800 && hi <= 0xDBFF
                , Right (lo, rest'') <- hex4 more, lo >= 0xDC00 && lo <= 0xDFFF ->
                  go (chr (0x10000 + (hi - 0xD800) * 0x400 + (lo - 0xDC00)) : acc) rest''
              -- A lone surrogate stays one: GHC's Char holds it.
              _ -> go (chr hi : acc) rest'
          _ -> Left "bad escape"
        go acc (c : rest) = go (c : acc) rest
        go _ [] = Left "unterminated string"
    hex4 (a : b : c : d : rest) | all isHexDigit [a, b, c, d] =
      Right (foldl (\n x -> n * 16 + digitToInt x) 0 [a, b, c, d], rest)
    hex4 _ = Left "bad \\u escape"

-- Pure ASCII: every other code point as \uXXXX (a surrogate pair above U+FFFF).
render :: J -> String
render (JStr s) = '"' : concatMap esc s ++ "\""
  where
    esc '"' = "\\\""
    esc '\\' = "\\\\"
    esc c | ord c >= 0x20 && ord c < 0x7F = [c]
          | ord c > 0xFFFF = let v = ord c - 0x10000
                             in u4 (0xD800 + v `shiftR` 10) ++ u4 (0xDC00 + v .&. 0x3FF)
          | otherwise = u4 (ord c)
    u4 n = "\\u" ++ [hexDigit (n `shiftR` s' .&. 15) | s' <- [12, 8, 4, 0]]
    hexDigit d = "0123456789abcdef" !! d
render (JNum n) = show n
render (JBool b) = if b then "true" else "false"
render JNull = "null"
render (JArr xs) = "[" ++ intercalate "," (map render xs) ++ "]"
render (JObj kvs) = "{" ++ intercalate "," [render (JStr k) ++ ":" ++ render v | (k, v) <- kvs] ++ "}"

lookupJ :: String -> J -> Maybe J
lookupJ k (JObj kvs) = lookup k kvs
lookupJ _ _ = Nothing

-- --- UTF-8 and base64 of a decoded String ---------------------------------------------
utf8Bytes :: String -> Maybe [Int]
utf8Bytes = fmap concat . mapM (enc . ord)
  where
    enc c
      | c < 0x80 = Just [c]
      | c < 0x800 = Just [0xC0 .|. c `shiftR` 6, 0x80 .|. c .&. 0x3F]
      | c >= 0xD800 && c <= 0xDFFF = Nothing
      | c < 0x10000 = Just [0xE0 .|. c `shiftR` 12, 0x80 .|. (c `shiftR` 6) .&. 0x3F,
                            0x80 .|. c .&. 0x3F]
      | otherwise = Just [0xF0 .|. c `shiftR` 18, 0x80 .|. (c `shiftR` 12) .&. 0x3F,
                          0x80 .|. (c `shiftR` 6) .&. 0x3F, 0x80 .|. c .&. 0x3F]

base64 :: [Int] -> String
base64 bs = case bs of
  (a : b : c : rest) -> quad a b c 4 ++ base64 rest
  [a, b] -> quad a b 0 3
  [a] -> quad a 0 0 2
  [] -> ""  -- not reached: the first equation
  where
    quad a b c n =
      let w = a `shiftL` 16 .|. b `shiftL` 8 .|. c
          cs = [alphabet !! (w `shiftR` s .&. 63) | s <- [18, 12, 6, 0]]
      in take n cs ++ replicate (4 - n) '='
    alphabet = ['A' .. 'Z'] ++ ['a' .. 'z'] ++ ['0' .. '9'] ++ "+/"

-- --- Questions ---------------------------------------------------------------------------
data Reply = Ok J | Unsupported String | ProtocolErr String

str :: String -> J -> Either Reply String
str k r = case lookupJ k r of
  Just (JStr s) -> Right s
  Just (JObj _) -> Left (Unsupported "Network.URI's functions take a String, not bytes")
  _ -> Left (ProtocolErr ("request without a string " ++ k))

answer :: J -> Either Reply J
answer r = do
  case lookupJ "impl" r of
    Just (JStr i) | i == impl -> pure ()
    _ -> Left (ProtocolErr "unknown implementation")
  q <- str "q" r
  case q of
    "encode" -> do
      set <- str "set" r
      p <- maybe (Left (Unsupported "no escapeURIString predicate for this set")) Right
             (lookup set escapers)
      encoding <- str "encoding" r
      if encoding /= "UTF-8" then Left (Unsupported "escapeURIString writes UTF-8") else pure ()
      value <- str "value" r
      case lookupJ "space_as_plus" r of
        Just (JBool True) | ' ' `elem` value ->
          Left (Unsupported "escapeURIString writes a space as %20")
        _ -> pure ()
      pure (JStr (escapeURIString p value))
    "decode" -> do
      value <- str "value" r
      case utf8Bytes (unEscapeString value) of
        Just bs -> pure (JObj [("base64", JStr (base64 bs))])
        Nothing -> Left (Unsupported "the decoded String holds a lone surrogate: no UTF-8")
    "form_serialize" -> Left (Unsupported "Network.URI has no form serializer")
    "form_parse" -> Left (Unsupported "Network.URI has no query parser")
    _ -> Left (ProtocolErr ("unknown question " ++ q))

handshake :: J
handshake =
  JObj [ ("protocol", JStr "pctfuzz-peer"), ("version", JNum 1)
       , ("peer", JStr "pctfuzz-haskell-peer")
       , ("runtime", JStr (compilerName ++ " " ++ showVersion fullCompilerVersion
                           ++ ", network-uri " ++ NETWORK_URI_VERSION))
       , ("implementations", JObj [(impl, JObj
           [ ("version", JStr NETWORK_URI_VERSION)
           , ("questions", JArr [JStr "encode", JStr "decode"])
           , ("sets", JArr (map (JStr . fst) escapers)) ])]) ]

loop :: Bool -> IO ()
loop first = do
  eof <- isEOF
  if eof then pure () else do
    line <- getLine
    if all (`elem` " \t\r") line then loop first else do
      reply <- case parseJson line of
        Left e -> pure (JObj [("protocol_error", JStr ("not JSON: " ++ e))])
        Right r
          | first -> pure $ case (lookupJ "protocol" r, lookupJ "version" r) of
              (Just (JStr "pctfuzz-peer"), Just (JNum 1)) -> handshake
              _ -> JObj [("protocol_error", JStr "this peer speaks pctfuzz-peer version 1")]
          | otherwise -> case lookupJ "id" r of
              Just (JNum n) -> do
                let idJ = ("id", JNum n)
                -- The answer is forced before it is written: a library error (an
                -- exception in pure code) is an error answer, never half a line.
                result <- try (evaluate (forceReply (answer r)))
                pure $ case result of
                  Left e -> JObj [idJ, ("error", JObj
                    [ ("type", JStr "SomeException")
                    , ("message", JStr (displayException (e :: SomeException))) ])]
                  Right (Right v) -> JObj [idJ, ("ok", v)]
                  Right (Left (Unsupported why)) -> JObj [idJ, ("unsupported", JStr why)]
                  Right (Left (ProtocolErr why)) -> JObj [idJ, ("protocol_error", JStr why)]
                  Right (Left (Ok v)) -> JObj [idJ, ("ok", v)]
              _ -> pure (JObj [("protocol_error", JStr "request without an id")])
      putStrLn (render reply)
      loop False
  where
    forceReply x = length (render (either replyJ id x)) `seq` x
    replyJ (Ok v) = v
    replyJ (Unsupported s) = JStr s
    replyJ (ProtocolErr s) = JStr s

main :: IO ()
main = do
  hSetEncoding stdin utf8Enc
  hSetEncoding stdout utf8Enc
  hSetBuffering stdout LineBuffering
  loop True
  where utf8Enc = System.IO.utf8
