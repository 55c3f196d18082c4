! The next-touch API from Fortran (omp_lib): a field initialised by one
! thread, then kmp_nexttouch on it before a parallel loop moves each page to
! the node of the thread that works on it next; the counters say how many
! pages moved.  gfortran has no '!$omp nexttouch' directive: the API call is
! the portable form (guard it with a preprocessor macro of your own if the
! code must also build against another omp_lib).
!
!   fortran_api [n (default 2048)] [sweeps (20)]
program fortran_api
  use omp_lib
  use, intrinsic :: iso_c_binding, only: c_sizeof
  implicit none
  integer :: n = 2048, sweeps = 20, i, j, s, stat
  character(len=32) :: arg
  real(8), allocatable :: u(:, :), v(:, :)
  type(kmp_nexttouch_counters) :: c
  real(8) :: t

  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) sweeps
  end if
  allocate (u(n, n), v(n, n))
  u = 0d0                  ! serial initialisation
  u(:, 1) = 1d0
  v = u

  call kmp_nexttouch(u, stat)
  if (stat /= 0) stop 'kmp_nexttouch(u) failed'
  call kmp_nexttouch(v, stat)
  if (stat /= 0) stop 'kmp_nexttouch(v) failed'

  t = omp_get_wtime()
  do s = 1, sweeps
    !$omp parallel do schedule(static)
    do j = 2, n - 1
      do i = 2, n - 1
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end do
    !$omp end parallel do
    u(2:n - 1, 2:n - 1) = v(2:n - 1, 2:n - 1)
  end do
  t = omp_get_wtime() - t

  c%size = c_sizeof(c)
  if (kmp_get_nexttouch_counters(c) /= 0) stop 'counters'
  print '(a, i0, a, i0, a, f8.3, a, i0, a, i0, a)', 'fortran_api: n=', n, &
    ', ', sweeps, ' sweeps, ', t, ' s, ', c%pages_migrated, &
    ' pages moved, ', c%pages_already_local, ' already local'
  if (.not. (u(2, 2) > 0d0 .and. u(2, 2) < 1d0 .and. u(n - 1, n - 1) >= 0d0)) then
    print '(a)', 'fortran_api: FAIL: values out of range'
    stop 1
  end if
  if (c%requests < 2) then
    print '(a)', 'fortran_api: FAIL: requests not counted'
    stop 1
  end if
  print '(a)', 'fortran_api: OK'
end program fortran_api
